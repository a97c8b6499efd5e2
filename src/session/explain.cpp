#include "dlldoctor/session/explain.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "dlldoctor/env/python_env.hpp"
#include "dlldoctor/resolve/resolver.hpp"

namespace dlldoctor::session {
namespace {

// A bare program name (python) is looked for as a shell would: as given, then with .exe, in the current
// folder and on PATH; not found there, the message says where it looked. Anything else is taken as it is.
Result<std::string> find_program(const env::Environment& environment, const std::string& program,
                                 env::FileSystem& files) {
  if (resolve::has_path(program)) return program;
  const std::string lower = ascii_lower(program);
  const bool has_exe = lower.size() > 4 && lower.compare(lower.size() - 4, 4, ".exe") == 0;
  const std::string exe = has_exe ? program : program + ".exe";
  std::vector<env::FolderRef> folders{environment.cwd};
  for (const env::PathEntry& entry : environment.path) folders.push_back(entry.folder);
  std::string looked_in;
  constexpr std::size_t kFoldersNamed = 8;
  for (std::size_t i = 0; i < folders.size(); ++i) {
    const env::FolderRef& folder = folders[i];
    if (i < kFoldersNamed) looked_in += (i == 0 ? "" : ", ") + folder.windows.value_or(folder.host);
    if (i == kFoldersNamed) looked_in += fmt::format(" and {} more", folders.size() - kFoldersNamed);
    if (!folder.exists) continue;
    for (const std::string& name : {program, exe}) {
      if (auto found = files.find_file(folder.host, name)) return *found;
    }
  }
  return Error{fmt::format(
      "{}: no {} in the current folder or on the PATH given (looked in {}): name the interpreter by its path "
      "(dlldoctor /mnt/c/Python312/python.exe --import ..., with --sysroot for a mounted Windows drive), or give "
      "the PATH it is on with --path",
      program, exe, looked_in)};
}

// The loads as the closure takes them: flags parsed, a profile's flags where none are given.
Result<std::vector<graph::LoadCall>> load_calls(const ExplainRequest& request, const rules::RuleData& rules) {
  const rules::LoadProfile* profile = nullptr;
  if (!request.profile.empty()) {
    profile = rules.profile(request.profile);
    if (!profile) {
      std::string known;
      for (const rules::LoadProfile& p : rules.profiles) known += (known.empty() ? "" : ", ") + p.id;
      return Error{fmt::format("--profile {}: no such profile (profiles: {}; add one with --rules DIR)",
                               request.profile, known.empty() ? "none" : known)};
    }
    if (request.loads.empty()) return Error{"--profile gives the flags of --load calls: add --host and --load"};
  }
  std::vector<graph::LoadCall> calls;
  for (const LoadRequest& load : request.loads) {
    graph::LoadCall call;
    call.name = load.name;
    for (const std::string& text : load.flags) {
      auto parsed = resolve::parse_load_flags(text);
      if (!parsed) return parsed.error();
      call.flags |= *parsed;
    }
    // A profile stands for the calls such a process makes (DOMAIN.md §2).
    if (load.flags.empty() && profile) {
      call.flags = resolve::has_path(call.name) ? profile->flags_with_path.value_or(profile->flags) : profile->flags;
    }
    if (profile) call.says = profile->says;
    calls.push_back(std::move(call));
  }
  return calls;
}

bool something_to_mend(const pipeline::Diagnosis& diagnosis) {
  return !diagnosis.closure.outcome.ok ||
         std::any_of(diagnosis.rules.findings.begin(), diagnosis.rules.findings.end(),
                     [](const rules::Finding& f) { return f.severity != rules::Severity::Info; });
}

Verdict verdict_of(const graph::Outcome& outcome, const std::vector<rules::Finding>& findings) {
  std::size_t errors = 0, warnings = 0;
  const rules::Finding* first_error = nullptr;
  for (const auto& finding : findings) {
    if (finding.severity == rules::Severity::Error) {
      if (!first_error) first_error = &finding;
      ++errors;
    } else if (finding.severity == rules::Severity::Warning) {
      ++warnings;
    }
  }
  if (!outcome.ok) {
    return {Tone::Fails, fmt::format("FAILS: {} fails with error {}: {}", outcome.request, outcome.error.value_or(0),
                                     outcome.reason)};
  }
  if (first_error) {
    return {Tone::Broken, fmt::format("BROKEN: {} succeeds, but {} error{} below will stop it later ({}{})",
                                      outcome.request, errors, errors == 1 ? "" : "s", first_error->id,
                                      first_error->module.empty() ? std::string() : ": " + first_error->module)};
  }
  if (warnings) {
    return {Tone::Warnings, fmt::format("WARNINGS: {} succeeds; {} warning{} below", outcome.request, warnings,
                                        warnings == 1 ? "" : "s")};
  }
  return {Tone::Healthy, fmt::format("HEALTHY: {} succeeds, and every DLL it needs is found", outcome.request)};
}

}  // namespace

int ExplainRun::exit_status() const {
  const bool error = std::any_of(findings().begin(), findings().end(),
                                 [](const rules::Finding& f) { return f.severity == rules::Severity::Error; });
  return error || !closure().outcome.ok ? 1 : 0;
}

void conclude(ExplainRun& run) {
  run.verdict = verdict_of(run.closure().outcome, run.findings());
  run.stack = stack_of(run.closure(), *run.rules, run.findings(), run.expansion ? &*run.expansion : nullptr);
  run.plan_steps.clear();
  for (const rules::Finding& finding : run.findings())
    run.plan_steps.push_back(run.plan ? plan::steps_mending(*run.plan, finding) : std::vector<std::size_t>());
}

Result<ExplainRun> explain(Machine& machine, const ExplainRequest& request) {
  env::Environment& environment = machine.environment();
  env::FileSystem& files = machine.files();
  const rules::RuleData& rules = machine.rules();
  ExplainRun run;
  run.environment = &environment;
  run.rules = &rules;
  run.profile = request.profile;
  run.policy = request.policy;
  run.request.program = request.program;
  run.request.program_is_host = request.program_is_host;

  pipeline::DiagnoseOptions& options = run.options;
  options.policy = request.policy;
  if (!request.imports.empty() || request.python_start_up) {
    auto interpreter = find_program(environment, run.request.program, files);
    if (!interpreter) return interpreter.error();
    run.request.program = std::move(interpreter).value();
    auto python = env::find_python_environment(environment, files, run.request.program, request.site_packages);
    if (!python) return python.error();
    // A venv's launcher starts the base interpreter, the process that loads the DLLs.
    run.request.program = python->interpreter;
    options.site_packages = python->site_packages;
    auto expanded = recipes::expand_python(rules, *python, request.imports, environment, files, run.request);
    if (!expanded) return expanded.error();
    run.expansion = std::move(expanded).value();
    // A packaged app's DLL search leaves PATH out; a process dlldoctor.exe starts is not packaged, so its
    // loader would search PATH and answer another question than the prediction's.
    if (request.probe && !run.request.settings.inherited_path_searched)
      return Error{"probe cannot replay these imports: " + run.request.program +
                   " is a Microsoft Store Python, whose DLL search leaves PATH out only inside its packaged app, and "
                   "a process started by probe is not packaged (run dlldoctor without probe for the prediction)"};
    for (const recipes::ExpandedRecipe& recipe : run.expansion->recipes) {
      auto version = recipe.values.find("version");
      options.frameworks.push_back({recipe.id, version == recipe.values.end() ? std::string() : version->second,
                                    recipe.first_load, recipe.loads});
      options.not_added.insert(options.not_added.end(), recipe.not_added.begin(), recipe.not_added.end());
    }
  }
  auto calls = load_calls(request, rules);
  if (!calls) return calls.error();
  run.request.preload = request.preload;
  for (graph::LoadCall& call : *calls) run.request.loads.push_back(std::move(call));
  if (!request.set_default_dirs.empty()) {
    auto parsed = resolve::parse_load_flags(request.set_default_dirs);
    if (!parsed) return parsed.error();
    run.request.settings.default_dirs = *parsed;
  }
  for (const auto& dir : request.add_dll_dirs) {
    env::FolderRef folder = env::resolve_folder(environment, dir, files);
    if (!folder.exists)
      environment.notes.push_back("--add-dll-dir " + dir + " does not exist (AddDllDirectory would fail)");
    run.request.settings.user_dirs.push_back(std::move(folder));
  }
  if (!request.set_dll_dir.empty())
    run.request.settings.dll_directory = env::resolve_folder(environment, request.set_dll_dir, files);
  for (const auto& dir : request.look_in) {
    const env::FolderRef folder = env::resolve_folder(environment, dir, files);
    // A folder that is not there would be searched for nothing, and the user would read "no copy found".
    if (!folder.exists) return Error{"--look-in " + dir + ": no such folder"};
    options.look_in.push_back(folder.host);
  }

  auto diagnosis = pipeline::diagnose(run.request, environment, rules, options, files, machine.images());
  if (!diagnosis) return diagnosis.error();
  run.diagnosis = std::move(diagnosis).value();
  run.owners = find_owners(run.closure(), environment, run.diagnosis.inventory, rules);
  // The plan is made before a probe adds its findings: those say where the prediction is wrong, which no
  // change to the machine mends.
  if (request.plan && something_to_mend(run.diagnosis))
    run.plan = plan::make_plan({run.request, environment, rules, options, files, machine.images()}, run.diagnosis);
  if (request.probe) {
    auto probe = request.probe(run.request, run.closure());
    if (!probe) return probe.error();
    rules::compare_with_probe(*probe, run.diagnosis.closure, rules, run.diagnosis.rules);
    run.probe = std::move(probe).value();
  }
  conclude(run);
  return run;
}

}  // namespace dlldoctor::session
