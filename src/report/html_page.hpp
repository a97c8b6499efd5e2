#pragma once
// What the HTML reports share: one self-contained page (no network: its styles and its few lines of
// script are inline, and a Content-Security-Policy forbids fetching anything else), text escaped for HTML.
#include <string>
#include <string_view>
#include <vector>

#include "report/text_layout.hpp"

namespace dlldoctor::report {

// `text` as HTML text or the value of a double-quoted attribute.
std::string html_text(std::string_view text);

// The page up to its <body>: doctype, charset, the policy, the title, the styles.
void html_page_start(TextOut& out, const std::string& title);

// A fix as a list: comment lines as they are, each command with its copy button.
void html_fix_list(TextOut& out, const std::vector<std::string>& lines);

// The page's end: the script (filter boxes, copy buttons) and the closing tags.
//  - <input class="filter" data-target="ID">: hides the rows of table#ID that do not contain every word
//    typed; a <tbody> whose rows are all hidden hides its heading row (class "group") too. The address's
//    #filter=WORDS fills the first box, so a link can point at one DLL.
//  - <button class="copy"> beside a <code>: copies the code's text.
void html_page_end(TextOut& out);

}  // namespace dlldoctor::report
