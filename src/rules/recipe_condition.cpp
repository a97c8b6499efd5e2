#include "rules/recipe_condition.hpp"

#include <fmt/format.h>

#include "core/text.hpp"

namespace dlldoctor::rules {
namespace {

std::vector<std::string_view> split(std::string_view text, std::string_view separator) {
  std::vector<std::string_view> parts;
  for (;;) {
    const auto at = text.find(separator);
    parts.push_back(text.substr(0, at));
    if (at == std::string_view::npos) return parts;
    text.remove_prefix(at + separator.size());
  }
}

}  // namespace

Result<Condition> parse_condition(std::string_view text) {
  Condition condition;
  for (std::string_view alternative : split(text, " or ")) {
    std::vector<Clause> clauses;
    for (std::string_view part : split(alternative, " and ")) {
      const auto equal = part.find("==");
      const auto differ = part.find("!=");
      if ((equal == std::string_view::npos) == (differ == std::string_view::npos) ||
          part.find("==", (equal == std::string_view::npos ? differ : equal) + 2) != std::string_view::npos ||
          part.find("!=", (equal == std::string_view::npos ? differ : equal) + 2) != std::string_view::npos) {
        return Error{fmt::format("\"{}\" is not A == B or A != B", trim_whitespace(part))};
      }
      const auto at = equal == std::string_view::npos ? differ : equal;
      const std::string_view left = trim_whitespace(part.substr(0, at)), right = trim_whitespace(part.substr(at + 2));
      if (left.empty() || right.empty()) return Error{fmt::format("\"{}\" lacks an operand", trim_whitespace(part))};
      clauses.push_back({std::string(left), equal != std::string_view::npos, std::string(right)});
    }
    condition.push_back(std::move(clauses));
  }
  return condition;
}

bool holds(const Condition& condition, const std::function<std::string(const std::string&)>& fill) {
  for (const std::vector<Clause>& alternative : condition) {
    bool all = true;
    for (const Clause& clause : alternative) {
      if ((fill(clause.left) == fill(clause.right)) != clause.equal) {
        all = false;
        break;
      }
    }
    if (all) return true;
  }
  return false;
}

}  // namespace dlldoctor::rules
