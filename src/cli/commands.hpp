#pragma once
// Each command binds its flags onto a CLI11 subcommand and returns the callback that runs it.
#include <CLI/CLI.hpp>

#include <functional>
#include <string>

namespace dlldoctor::cli {

// Exit statuses shared by every command: 0 fine, 1 problems found, 2 the tool could not do its job.
inline constexpr int kExitOk = 0;
inline constexpr int kExitFindings = 1;
inline constexpr int kExitFailure = 2;

using Runner = std::function<int()>;

Runner setup_inspect(CLI::App& app);
// `dlldoctor sdk DIR`, and the top-level spelling `dlldoctor --sdk DIR` (main runs it when app.count("--sdk")).
Runner setup_sdk(CLI::App& app, const std::string& argv0);
// The main job binds onto the top-level command: `dlldoctor APP.exe [flags]`.
Runner setup_explain(CLI::App& app, const std::string& argv0);

}  // namespace dlldoctor::cli
