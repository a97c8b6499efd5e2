#include "report/html_page.hpp"

namespace dlldoctor::report {

std::string html_text(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

void html_fix_list(TextOut& out, const std::vector<std::string>& lines) {
  out.line("<ul class=\"fix\">");
  for (const std::string& line : lines) {
    if (line.rfind('#', 0) == 0) {
      out.line("<li class=\"comment\"><code>" + html_text(line) + "</code></li>");
    } else {
      out.line("<li><code>" + html_text(line) + "</code><button class=\"copy\" type=\"button\">copy</button></li>");
    }
  }
  out.line("</ul>");
}

void html_page_start(TextOut& out, const std::string& title) {
  out.own_lines(R"(<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">)");
  out.line("<title>" + html_text(title) + "</title>");
  out.own_lines(R"(<style>
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 1.5em auto; max-width: 70em; padding: 0 1em; color: #212121; overflow-wrap: anywhere; }
h1 { font-size: 1.4em; margin: 0 0 .3em; } h2 { font-size: 1.15em; margin: 1.6em 0 .5em; border-bottom: 1px solid #e0e0e0; }
code, pre, .path { font-family: ui-monospace, "Cascadia Mono", Consolas, monospace; font-size: 13px; }
.verdict { font-weight: 600; padding: .6em .8em; border-radius: 6px; border-left: 6px solid; }
.tone-fails, .tone-broken { background: #ffebee; border-color: #c62828; color: #b71c1c; }
.tone-warnings { background: #fff3e0; border-color: #ef6c00; }
.tone-healthy { background: #e8f5e9; border-color: #2e7d32; color: #1b5e20; }
.finding { border: 1px solid #e0e0e0; border-radius: 6px; padding: .5em .8em; margin: .6em 0; }
.severity { font-weight: 600; text-transform: uppercase; font-size: 12px; padding: 1px 6px; border-radius: 4px; color: #fff; }
.severity-error { background: #c62828; } .severity-warning { background: #ef6c00; } .severity-info { background: #1565c0; }
.why { color: #555; }
.says { white-space: pre-wrap; word-break: break-all; background: #fff3f3; padding: 4px 6px; border-radius: 4px; margin: .2em 0; }
.seen { margin: .4em 0 0; color: #616161; }
.fix { margin: .4em 0 0; padding: 0; list-style: none; }
.fix li { display: flex; gap: .5em; align-items: flex-start; margin: 2px 0; }
.fix code { flex: 1; white-space: pre-wrap; word-break: break-all; background: #f5f5f5; padding: 3px 6px; border-radius: 4px; }
.fix .comment code { background: none; color: #616161; }
button.copy { font-size: 12px; padding: 1px 8px; cursor: pointer; }
table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: 3px 8px; border-bottom: 1px solid #eee; vertical-align: top; }
th { background: #fafafa; } tr.group th { background: #eef2f7; }
input.filter { font: inherit; padding: 4px 8px; width: 22em; margin: .3em 0 .6em; }
.tree details { margin-left: 1.2em; } .tree > details { margin-left: 0; }
.tree summary { cursor: pointer; } .tree .leaf { margin-left: 2.4em; }
.node { display: inline-block; padding: 1px 8px; border-radius: 6px; border: 1px solid; margin: 1px 0; }
.thick { border-width: 2px; } .dashed { border-style: dashed; }
.note { color: #555; margin-left: .4em; }
.plan-headline { font-weight: 600; } ol.plan > li > p { margin: .5em 0 .1em; }
.legend { background: #f5f5f5; border-radius: 6px; padding: .2em .8em; margin: .6em 0; }
</style>
</head>
<body>)");
}

void html_page_end(TextOut& out) {
  out.own_lines(R"(<script>
"use strict";
function applyFilter(box) {
  const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
  const table = document.getElementById(box.dataset.target);
  for (const body of table.tBodies) {
    let shown = 0;
    for (const row of body.rows) {
      if (row.classList.contains("group")) continue;
      const text = row.textContent.toLowerCase();
      row.hidden = !words.every(word => text.includes(word));
      if (!row.hidden) shown++;
    }
    for (const row of body.rows) if (row.classList.contains("group")) row.hidden = shown === 0;
  }
}
for (const box of document.querySelectorAll("input.filter")) box.addEventListener("input", () => applyFilter(box));
const wanted = location.hash.match(/^#filter=(.*)$/);
const first = document.querySelector("input.filter");
if (wanted && first) {
  // A malformed escape (#filter=100%) is taken as typed; it must not stop the copy buttons below.
  try { first.value = decodeURIComponent(wanted[1]); } catch (error) { first.value = wanted[1]; }
  applyFilter(first);
}
for (const button of document.querySelectorAll("button.copy")) {
  button.addEventListener("click", () => {
    const code = button.parentElement.querySelector("code");
    const select = () => {
      const range = document.createRange();
      range.selectNodeContents(code);
      getSelection().removeAllRanges();
      getSelection().addRange(range);
      button.textContent = "selected: Ctrl+C";
    };
    if (navigator.clipboard) navigator.clipboard.writeText(code.textContent).then(() => { button.textContent = "copied"; }, select);
    else select();
  });
}
</script>
</body>
</html>)");
}

}  // namespace dlldoctor::report
