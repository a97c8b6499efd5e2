#pragma once
// The JSON pieces the program report (docs/report-json.md) and `check`'s report (docs/check-json.md) write
// the same way.
#include <optional>
#include <string_view>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "dlldoctor/session/owners.hpp"
#include "dlldoctor/session/stack.hpp"

namespace dlldoctor::report {

using session::Stack;

void put_folder(JsonStream& out, std::string_view key, const env::FolderRef& folder);
// environment.path: each entry as given, with its folder.
void put_path(JsonStream& out, const env::Environment& environment);
// environment.rules: which rules the run read.
void put_rules_origin(JsonStream& out, const rules::RulesOrigin& origin);
Json error_json(const std::optional<rules::LoaderErrorText>& error);
void put_outcome(JsonStream& out, std::string_view key, const graph::Outcome& outcome);
void put_stack(JsonStream& out, std::string_view key, const Stack& stack);
// "owner": who installed a file (session/owners.hpp), or null.
void put_owner(JsonStream& out, const std::optional<session::Owner>& owner);

}  // namespace dlldoctor::report
