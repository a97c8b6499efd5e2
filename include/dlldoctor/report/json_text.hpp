#pragma once
// JSON as dlldoctor prints it: valid JSON whatever bytes the inspected files hold. Names come from import
// tables, export tables, version resources and file systems, so they may be any bytes; nlohmann's dump()
// would refuse (or silently replace) invalid UTF-8 and passes DEL and C1 controls through raw, which a
// terminal obeys. docs/report-json.md, "Bytes that are not text".
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/report/writers.hpp"

namespace dlldoctor::report {

// Reports keep their members in the order they are written.
using Json = nlohmann::ordered_json;

// A dump (indent 2, UTF-8 kept) in which DEL and the C1 controls U+0080-U+009F are \u00XX escapes; the
// other controls nlohmann already escapes. Only valid for the output of dump(), where those bytes can
// only stand inside strings.
std::string escape_remaining_controls(std::string dumped);

// Every string and key of `document` with its invalid UTF-8 written as \xNN (the text reports' spelling of
// the same bytes; escape_bytes), dumped, escape_remaining_controls, newline.
template <typename BasicJson>
std::string json_text(const BasicJson& document);

// json_text of `value` without its newline, every line after the first indented by `indent` more spaces:
// the value as it stands at that depth of a larger document.
template <typename BasicJson>
std::string json_text_at(const BasicJson& value, std::size_t indent);

// `text` as a JSON string, appended to `out`: the bytes json_text gives a string holding it.
void append_json_string(std::string& out, std::string_view text);

// One JSON document written as it is produced: members and elements go out one at a time, with the
// bytes json_text would give the whole document, so a report of 694 files never holds more than one
// file's values. Containers are opened and closed around the values put in them.
class JsonStream {
 public:
  explicit JsonStream(Sink& out) : out_(out) {}
  JsonStream(const JsonStream&) = delete;
  JsonStream& operator=(const JsonStream&) = delete;
  // No flush here: a document is written out when its last container closes (finished()); one left open
  // was cut short by an exception, and a destructor that writes could throw in its turn.
  ~JsonStream() = default;

  // A container as the whole document, an element of an array (key empty) or a member of an object.
  void open_object(std::string_view key = {}) { open(key, '{'); }
  void open_array(std::string_view key = {}) { open(key, '['); }
  void close();

  // A value as the whole document, an element of an array, or a member (key) of an object.
  template <typename BasicJson>
  void put(std::string_view key, const BasicJson& value) {
    start(key);
    append_value(value, 2 * open_.size());
    finished();
  }
  template <typename BasicJson>
  void put(const BasicJson& value) {
    put(std::string_view(), value);
  }

  // Scalars written straight from the value, without a document (inspect writes thousands a file).
  void put_text(std::string_view key, std::string_view text);
  void put_number(std::string_view key, std::uint64_t number);
  void put_bool(std::string_view key, bool value) { put_literal(key, value ? "true" : "false"); }
  void put_null(std::string_view key) { put_literal(key, "null"); }
  // The text, or null: when there is none, and for put_nonempty_text when it is empty.
  void put_text_or_null(std::string_view key, std::optional<std::string_view> text);
  void put_nonempty_text(std::string_view key, std::string_view text);
  // An array of texts.
  void put_texts(std::string_view key, const std::vector<std::string>& texts);

 private:
  void open(std::string_view key, char bracket);
  void put_literal(std::string_view key, std::string_view literal);
  // json_text_at's bytes, written straight from the document instead of through nlohmann's serializer
  // and the checks of its whole text, which made a report's JSON much slower (docs/PERFORMANCE.md).
  template <typename BasicJson>
  void append_value(const BasicJson& value, std::size_t indent);
  void start(std::string_view key);
  void finished();
  void flush();

  struct Open {
    char bracket;
    bool empty;
  };
  // Pieces of about this size go to the sink: few writes, and memory that does not grow with the document.
  static constexpr std::size_t kFlushAt = 64 * 1024;
  Sink& out_;
  std::string text_;
  std::vector<Open> open_;
};

}  // namespace dlldoctor::report
