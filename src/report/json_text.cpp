#include "dlldoctor/report/json_text.hpp"

#include <stdexcept>

#include "core/utf8.hpp"

namespace dlldoctor::report {
namespace {
constexpr char kHex[] = "0123456789abcdef";

// Indentation from a run of spaces: append(count, ' ') fills byte by byte, and JSON is mostly indentation.
void append_spaces(std::string& out, std::size_t count) {
  static constexpr std::string_view kSpaces = "                                                                ";
  for (; count > kSpaces.size(); count -= kSpaces.size()) out += kSpaces;
  out.append(kSpaces.data(), count);
}
}  // namespace

std::string escape_remaining_controls(std::string dumped) {
  // Nearly every report has neither byte: then there is nothing to copy.
  if (dumped.find('\x7f') == std::string::npos && dumped.find('\xc2') == std::string::npos) return dumped;
  std::string out;
  out.reserve(dumped.size());
  for (std::size_t at = 0; at < dumped.size(); ++at) {
    const auto byte = static_cast<unsigned char>(dumped[at]);
    unsigned code = 0x100;
    if (byte == 0x7F) {
      code = byte;
    } else if (byte == 0xC2 && at + 1 < dumped.size() && static_cast<unsigned char>(dumped[at + 1]) < 0xA0 &&
               static_cast<unsigned char>(dumped[at + 1]) >= 0x80) {
      code = static_cast<unsigned char>(dumped[++at]);
    }
    if (code == 0x100) {
      out += dumped[at];
      continue;
    }
    out += "\\u00";
    out += kHex[code >> 4];
    out += kHex[code & 15];
  }
  return out;
}

namespace {

// Whether any string or key of `value` is not valid UTF-8 (rare: a name from a hostile file).
template <typename BasicJson>
bool has_invalid_utf8(const BasicJson& value) {
  if (value.is_string()) return !valid_utf8(value.template get_ref<const typename BasicJson::string_t&>());
  if (value.is_array()) {
    for (const auto& item : value) {
      if (has_invalid_utf8(item)) return true;
    }
  }
  if (value.is_object()) {
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (!valid_utf8(it.key()) || has_invalid_utf8(it.value())) return true;
    }
  }
  return false;
}

template <typename BasicJson>
BasicJson printable(const BasicJson& value) {
  if (value.is_string()) {
    const auto& text = value.template get_ref<const typename BasicJson::string_t&>();
    return valid_utf8(text) ? value : BasicJson(escape_bytes(text, Escape::InvalidUtf8));
  }
  if (value.is_array()) {
    BasicJson out = BasicJson::array();
    for (const auto& item : value) out.push_back(printable(item));
    return out;
  }
  if (value.is_object()) {
    BasicJson out = BasicJson::object();
    for (auto it = value.begin(); it != value.end(); ++it)
      out[escape_bytes(it.key(), Escape::InvalidUtf8)] = printable(it.value());
    return out;
  }
  return value;
}

}  // namespace

template <typename BasicJson>
std::string json_text(const BasicJson& document) {
  return json_text_at(document, 0) + "\n";
}

template <typename BasicJson>
std::string json_text_at(const BasicJson& value, std::size_t indent) {
  // printable() leaves no invalid UTF-8, so the dump cannot throw; strict mode would say so if it did.
  // The serializer is the one dump() uses, given the indentation the value starts at (dump() always
  // starts at 0, and re-indenting its text would copy every report once more).
  // nlohmann 3.11's serializer grows its indentation buffer (512 spaces) once per level, so a start
  // deeper than that is refused here rather than read past; reports nest a few levels.
  if (indent > 256) throw std::length_error("json_text_at: indentation deeper than 256");
  std::string text;
  nlohmann::detail::serializer<BasicJson> serializer(nlohmann::detail::output_adapter<char>(text), ' ',
                                                     BasicJson::error_handler_t::strict);
  const auto dump = [&](const BasicJson& printable_value) {
    serializer.dump(printable_value, true, false, 2, static_cast<unsigned>(indent));
  };
  if (has_invalid_utf8(value)) {
    dump(printable(value));
  } else {
    dump(value);
  }
  return escape_remaining_controls(std::move(text));
}

template std::string json_text<nlohmann::json>(const nlohmann::json&);
template std::string json_text<nlohmann::ordered_json>(const nlohmann::ordered_json&);
template std::string json_text_at<nlohmann::json>(const nlohmann::json&, std::size_t);
template std::string json_text_at<nlohmann::ordered_json>(const nlohmann::ordered_json&, std::size_t);

void append_json_string(std::string& out, std::string_view text) {
  // What json_text does to a string, in one pass: invalid UTF-8 as the text \xNN (escape_bytes), then
  // nlohmann's escapes (quote, backslash, the C0 controls), then escape_remaining_controls (DEL, C1).
  // Nearly every name and path is printable ASCII without a quote or backslash: copied as it is. Otherwise
  // that plain start is read once: it is valid UTF-8, and escape_bytes leaves it as it is.
  const std::size_t plain = printable_ascii_end(text, 0, "\"\\");
  if (plain == text.size()) {
    out += '"';
    out += text;
    out += '"';
    return;
  }
  std::string replaced;
  if (!valid_utf8(text.substr(plain))) {
    replaced = escape_bytes(text, Escape::InvalidUtf8);
    text = replaced;
  }
  out += '"';
  std::size_t run = 0;  // start of the bytes not yet copied
  const auto escape = [&](std::size_t at, std::size_t length, std::string_view with) {
    out.append(text.data() + run, at - run);
    out += with;
    run = at + length;
  };
  for (std::size_t at = plain; at < text.size(); at = printable_ascii_end(text, at + 1, "\"\\")) {
    const auto byte = static_cast<unsigned char>(text[at]);
    if (byte >= 0x20 && byte != '"' && byte != '\\' && byte != 0x7f && byte != 0xc2) continue;
    switch (byte) {
      case '"': escape(at, 1, "\\\""); continue;
      case '\\': escape(at, 1, "\\\\"); continue;
      case '\b': escape(at, 1, "\\b"); continue;
      case '\t': escape(at, 1, "\\t"); continue;
      case '\n': escape(at, 1, "\\n"); continue;
      case '\f': escape(at, 1, "\\f"); continue;
      case '\r': escape(at, 1, "\\r"); continue;
      default: break;
    }
    unsigned code = byte;
    std::size_t length = 1;
    if (byte == 0xc2) {
      // Only U+0080-U+009F (the C1 controls) are escaped; the text is valid UTF-8 here, so the second
      // byte is there, and the check only keeps that from resting on the branch above.
      if (at + 1 >= text.size()) continue;
      const auto next = static_cast<unsigned char>(text[at + 1]);
      if (next >= 0xa0) continue;
      code = next;
      length = 2;
    }
    const char hex[] = {'\\', 'u', '0', '0', kHex[code >> 4], kHex[code & 15]};
    escape(at, length, std::string_view(hex, sizeof hex));
    at += length - 1;
  }
  out.append(text.data() + run, text.size() - run);
  out += '"';
}

template <typename BasicJson>
void JsonStream::append_value(const BasicJson& value, std::size_t indent) {
  using Type = nlohmann::json::value_t;
  switch (value.type()) {
    case Type::null: text_ += "null"; return;
    case Type::boolean: text_ += value.template get<bool>() ? "true" : "false"; return;
    case Type::number_integer: text_ += std::to_string(value.template get<std::int64_t>()); return;
    case Type::number_unsigned: text_ += std::to_string(value.template get<std::uint64_t>()); return;
    case Type::string: append_json_string(text_, value.template get_ref<const typename BasicJson::string_t&>()); return;
    case Type::array:
    case Type::object: {
      const bool object = value.is_object();
      if (value.empty()) {
        text_ += object ? "{}" : "[]";
        return;
      }
      text_ += object ? "{\n" : "[\n";
      for (auto it = value.begin(); it != value.end(); ++it) {
        if (it != value.begin()) text_ += ",\n";
        append_spaces(text_, indent + 2);
        if (object) {
          append_json_string(text_, it.key());
          text_ += ": ";
        }
        append_value(*it, indent + 2);
      }
      text_ += '\n';
      append_spaces(text_, indent);
      text_ += object ? '}' : ']';
      return;
    }
    default: text_ += json_text_at(value, indent); return;  // floats (no report has one): nlohmann's spelling
  }
}

template void JsonStream::append_value<nlohmann::json>(const nlohmann::json&, std::size_t);
template void JsonStream::append_value<nlohmann::ordered_json>(const nlohmann::ordered_json&, std::size_t);

void JsonStream::put_text(std::string_view key, std::string_view text) {
  start(key);
  append_json_string(text_, text);
  finished();
}

void JsonStream::put_text_or_null(std::string_view key, std::optional<std::string_view> text) {
  if (text) {
    put_text(key, *text);
  } else {
    put_null(key);
  }
}

void JsonStream::put_nonempty_text(std::string_view key, std::string_view text) {
  if (text.empty()) {
    put_null(key);
  } else {
    put_text(key, text);
  }
}

void JsonStream::put_texts(std::string_view key, const std::vector<std::string>& texts) {
  open_array(key);
  for (const std::string& text : texts) put_text({}, text);
  close();
}

void JsonStream::put_number(std::string_view key, std::uint64_t number) {
  start(key);
  text_ += std::to_string(number);
  finished();
}

void JsonStream::put_literal(std::string_view key, std::string_view literal) {
  start(key);
  text_ += literal;
  finished();
}

void JsonStream::open(std::string_view key, char bracket) {
  start(key);
  text_ += bracket;
  open_.push_back({bracket, true});
}

void JsonStream::start(std::string_view key) {
  if (open_.empty()) return;
  Open& inner = open_.back();
  text_ += inner.empty ? "\n" : ",\n";
  inner.empty = false;
  append_spaces(text_, 2 * open_.size());
  if (inner.bracket == '{') {
    append_json_string(text_, key);
    text_ += ": ";
  }
}

void JsonStream::close() {
  const Open inner = open_.back();
  open_.pop_back();
  if (!inner.empty) {
    text_ += '\n';
    append_spaces(text_, 2 * open_.size());
  }
  text_ += inner.bracket == '{' ? '}' : ']';
  finished();
}

void JsonStream::finished() {
  if (open_.empty()) {
    text_ += '\n';
    flush();
  } else if (text_.size() >= kFlushAt) {
    flush();
  }
}

void JsonStream::flush() {
  if (text_.empty()) return;
  out_.put(text_);
  text_.clear();
}

}  // namespace dlldoctor::report
