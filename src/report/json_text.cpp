#include "dlldoctor/report/json_text.hpp"

#include "dlldoctor/core/utf8.hpp"

namespace dlldoctor::report {

std::string escape_remaining_controls(std::string dumped) {
  static constexpr char kHex[] = "0123456789abcdef";
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
  // printable() leaves no invalid UTF-8, so dump() cannot throw; strict mode would say so if it did.
  return escape_remaining_controls(printable(document).dump(2, ' ', false, BasicJson::error_handler_t::strict)) + "\n";
}

template std::string json_text<nlohmann::json>(const nlohmann::json&);
template std::string json_text<nlohmann::ordered_json>(const nlohmann::ordered_json&);

}  // namespace dlldoctor::report
