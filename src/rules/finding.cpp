#include "dlldoctor/rules/finding.hpp"

#include <fmt/format.h>

#include <map>

namespace dlldoctor::rules {

const std::vector<std::string>* fix_step_fields(const std::string& kind) {
  static const std::map<std::string, std::vector<std::string>> kFields = {
      {"rename", {"path"}},
      {"copy", {"from", "to"}},
      {"install", {"names", "to", "version", "what", "command", "copy_from", "unpack"}},
      {"path_add", {"entry", "position", "scope"}},
      {"path_remove", {"entry", "scope"}},
      {"path_replace", {"entry", "with", "scope"}},
      {"unblock", {"path"}},
      {"new_terminal", {}},
      {"by_hand", {"what"}},
  };
  auto it = kFields.find(kind);
  return it == kFields.end() ? nullptr : &it->second;
}

const std::vector<std::string>& FixStep::values(const std::string& field) const {
  static const std::vector<std::string> kNone;
  auto it = fields.find(field);
  return it == fields.end() ? kNone : it->second;
}

std::string FixStep::value(const std::string& field) const {
  const auto& all = values(field);
  return all.empty() ? std::string() : all.front();
}

std::string finding_label(const FindingKey& key) {
  return fmt::format("[{}]{}", key.id, key.module.empty() ? std::string() : " (" + key.module + ")");
}

}  // namespace dlldoctor::rules
