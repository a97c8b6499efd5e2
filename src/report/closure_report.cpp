#include "dlldoctor/report/closure_report.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <set>

#include "dlldoctor/report/closure_view.hpp"
#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/json_text.hpp"
#include "dlldoctor/session/stack.hpp"
#include "report/closure_formats.hpp"
#include "report/legend.hpp"
#include "report/markdown.hpp"
#include "report/plan_report.hpp"
#include "report/report_json.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

using graph::Module;
using resolve::Failure;

// The report's objects are written member by member as they are read (building a document per module was
// most of a report's time); the bytes are those json_text gives the same values.
void put_folder_members(JsonStream& out, const env::FolderRef& folder) {
  out.put_nonempty_text("host", folder.host);
  out.put_text_or_null("windows", folder.windows);
  out.put_bool("exists", folder.exists);
}

// A folder of a search order: where it is, then the step that searches it.
void put_searched_folder(JsonStream& out, const resolve::SearchFolder& searched) {
  out.open_object();
  put_folder_members(out, searched.folder);
  out.put_text("step", resolve::step_name(searched.step));
  out.close();
}

}  // namespace

void put_path(JsonStream& out, const env::Environment& environment) {
  out.open_array("path");
  for (const auto& entry : environment.path) {
    out.open_object();
    put_folder_members(out, entry.folder);
    out.put_text("entry", entry.text);
    out.put_nonempty_text("note", entry.note);
    out.close();
  }
  out.close();
}

void put_folder(JsonStream& out, std::string_view key, const env::FolderRef& folder) {
  out.open_object(key);
  put_folder_members(out, folder);
  out.close();
}

// Which rules the run read (docs/report-json.md, environment.rules).
void put_rules_origin(JsonStream& out, const rules::RulesOrigin& origin) {
  out.open_object("rules");
  out.put_text("source", origin.folder ? "folder" : "built-in");
  out.put_text("builtin_version", origin.builtin_version);
  out.put_text_or_null("folder", origin.folder);
  out.put_texts("edited", origin.edited);
  out.put_texts("extra", origin.extra);
  out.close();
}

namespace {

const char* status_name(Failure failure) {
  switch (failure) {
    case Failure::None: return "ok";
    case Failure::NotFound: return "not_found";
    case Failure::BadImage: return "bad_image";
  }
  return "?";
}

}  // namespace

Json error_json(const std::optional<rules::LoaderErrorText>& error) {
  if (!error) return nullptr;
  return Json{{"code", error->code}, {"name", error->name}, {"text", error->text}};
}

void put_outcome(JsonStream& out, std::string_view key, const graph::Outcome& outcome) {
  out.open_object(key);
  out.put_text("request", outcome.request);
  out.put_text("status", outcome.ok ? "ok" : "fails");
  out.put("error", outcome.error ? Json(*outcome.error) : Json(nullptr));
  out.put_nonempty_text("reason", outcome.reason);
  out.open_array("missing");
  for (const auto& m : outcome.missing) {
    out.open_object();
    out.put_text("dll", m.dll);
    out.put_text("needed_by", m.needed_by);
    out.close();
  }
  out.close();
  out.put_text_or_null("module", outcome.module);
  if (outcome.found_by) {
    out.put_text("found_by", resolve::step_name(*outcome.found_by));
  } else {
    out.put_null("found_by");
  }
  out.close();
}

void put_owner(JsonStream& out, const std::optional<session::Owner>& owner) {
  if (!owner) {
    out.put_null("owner");
    return;
  }
  out.open_object("owner");
  out.put_text("kind", owner->kind);
  out.put_text("name", owner->name);
  out.put_nonempty_text("version", owner->version);
  out.put_text("evidence", owner->evidence);
  out.close();
}

namespace {

std::optional<std::uint16_t> module_machine(const Module& module) {
  if (module.resolution.image) return module.resolution.image->machine;
  for (const auto& c : module.resolution.candidates) {
    if (c.path == module.resolution.path.value_or("") && c.machine) return c.machine;
  }
  return std::nullopt;
}

void put_machine(JsonStream& out, std::string_view key, const std::optional<std::uint16_t>& machine) {
  if (machine) {
    out.put_text(key, pe::machine_name(*machine));
  } else {
    out.put_null(key);
  }
}

void put_candidate(JsonStream& out, const resolve::Candidate& c) {
  out.open_object();
  out.put_text("step", resolve::step_name(c.step));
  if (c.assumed) {
    out.put_null("path");
  } else {
    out.put_text("path", c.path);
  }
  out.put_text_or_null("windows_path", c.windows_path);
  put_machine(out, "machine", c.machine);
  put_version(out, "file_version", c.file_version);
  out.put_text("verdict", resolve::verdict_name(c.verdict));
  out.put_bool("assumed", c.assumed);
  out.put_nonempty_text("problem", c.problem);
  if (c.mark_of_the_web) {
    out.put("mark_of_the_web", Json{{"zone_id", c.mark_of_the_web->zone_id},
                                    {"host_url", c.mark_of_the_web->host_url},
                                    {"stream", c.mark_of_the_web->stream}});
  } else {
    out.put_null("mark_of_the_web");
  }
  out.close();
}

void put_module(JsonStream& out, const Module& module, const std::optional<session::Owner>& owner) {
  const auto& r = module.resolution;
  out.open_object();
  out.put_text("name", module.name);
  out.put_text("status", status_name(r.failure));
  out.put_text_or_null("path", r.path);
  out.put_text_or_null("windows_path", r.windows_path);
  if (r.failure == Failure::NotFound && r.found_by != resolve::SearchStep::ApiSet) {
    out.put_null("found_by");
  } else {
    out.put_text("found_by", resolve::step_name(r.found_by));
  }
  out.put_text("load", graph::load_kind_name(module.load));
  out.put_texts("needed_by", module.needed_by);
  put_machine(out, "machine", module_machine(module));
  put_version(out, "file_version", r.image ? r.image->file_version : std::nullopt);
  out.put_bool("assumed", r.assumed);
  out.put_text_or_null("api_set_host", r.api_set_host);
  out.put_text_or_null("family", module.family);
  out.open_array("candidates");
  for (const auto& c : r.candidates) put_candidate(out, c);
  out.close();
  out.open_array("shadowed");
  for (const auto& c : r.candidates) {
    if (c.verdict == resolve::Verdict::Shadowed) out.put_text({}, c.assumed ? *c.windows_path : c.path);
  }
  out.close();
  out.open_array("missing_exports");
  for (const auto& m : module.missing_exports) {
    out.open_object();
    out.put_text("function", m.function);
    out.put_text("needed_by", m.needed_by);
    out.put_text("detail", m.detail);
    out.close();
  }
  out.close();
  out.open_array("searched");
  for (const auto& searched : r.searched) put_searched_folder(out, searched);
  out.close();
  out.open_array("may_load");
  for (const graph::MayLoad& hint : module.may_load) {
    const auto& h = hint.resolution;
    out.open_object();
    out.put_text("dll", hint.dll);
    out.put_text("status", status_name(h.failure));
    out.put_text_or_null("path", h.path);
    out.put_text_or_null("windows_path", h.windows_path);
    if (h.failure == Failure::NotFound) {
      out.put_null("found_by");
    } else {
      out.put_text("found_by", resolve::step_name(h.found_by));
    }
    put_version(out, "file_version", h.image ? h.image->file_version : std::nullopt);
    out.open_array("searched");
    for (const auto& searched : h.searched) put_searched_folder(out, searched);
    out.close();
    out.close();
  }
  out.close();
  out.put_texts("other_major", module.other_major);
  put_owner(out, owner);
  out.close();
}

Json python_json(const recipes::Expansion& expansion) {
  const env::PythonEnvironment& python = expansion.python;
  Json recipes = Json::array();
  for (const recipes::ExpandedRecipe& recipe : expansion.recipes) {
    Json steps = Json::array();
    for (const recipes::StepOutcome& step : recipe.steps) {
      steps.push_back(
          {{"step", step.step}, {"outcome", step.outcome}, {"why", step.why.empty() ? Json(nullptr) : Json(step.why)}});
    }
    recipes.push_back(
        {{"id", recipe.id},
         {"name", recipe.name},
         {"package", recipe.package_dir.empty() ? Json(nullptr) : Json(recipe.package_dir)},
         {"values", recipe.values},
         {"loads", {{"first", recipe.first_load}, {"count", recipe.loads}}},
         {"steps", std::move(steps)},
         {"code", recipe.code},
         {"outside_covers", recipe.outside_covers.empty() ? Json(nullptr) : Json(recipe.outside_covers)}});
  }
  return Json{{"interpreter", python.interpreter},
              {"launcher", python.launcher.empty() ? Json(nullptr) : Json(python.launcher)},
              {"layout", std::string(env::layout_name(python.layout))},
              {"why", python.why},
              {"version", python.version.empty() ? Json(nullptr) : Json(python.version)},
              {"prefix", python.prefix},
              {"base_prefix", python.base_prefix},
              {"site_packages", python.site_packages},
              {"user_site", python.user_site.empty() ? Json(nullptr) : Json(python.user_site)},
              {"user_site_why", python.user_site_why},
              {"variables_used", expansion.variables_used},
              {"recipes", std::move(recipes)}};
}

void put_stack_entry_members(JsonStream& out, const StackEntry& entry) {
  out.put_text("family", entry.family);
  out.put_text("name", entry.name);
  out.put_nonempty_text("version", entry.version);
  out.put_text_or_null("path", entry.path);
  out.put_text_or_null("windows_path", entry.windows_path);
  out.put_text("found_by", resolve::step_name(entry.found_by));
  out.put_bool("assumed", entry.assumed);
  out.open_array("dlls");
  for (const StackDll& dll : entry.dlls) {
    out.open_object();
    out.put_text("name", dll.name);
    out.put_text_or_null("file_version", dll.file_version);
    out.close();
  }
  out.close();
  out.put_texts("findings", entry.findings);
}

void put_stack_entries(JsonStream& out, std::string_view key, const std::vector<StackEntry>& entries) {
  out.open_array(key);
  for (const StackEntry& entry : entries) {
    out.open_object();
    put_stack_entry_members(out, entry);
    out.close();
  }
  out.close();
}

}  // namespace

void put_stack(JsonStream& out, std::string_view key, const Stack& stack) {
  out.open_object(key);
  if (stack.driver) {
    out.open_object("driver");
    put_stack_entry_members(out, stack.driver->entry);
    out.put_nonempty_text("newest_cuda", stack.driver->newest_cuda);
    out.close();
  } else {
    out.put_null("driver");
  }
  put_stack_entries(out, "cuda_runtimes", stack.cuda_runtimes);
  put_stack_entries(out, "cudnn", stack.cudnn);
  put_stack_entries(out, "msvc_runtime", stack.msvc_runtime);
  out.open_array("frameworks");
  for (const StackFramework& framework : stack.frameworks) {
    out.open_object();
    out.put_text("recipe", framework.recipe);
    out.put_text("name", framework.name);
    out.put_nonempty_text("version", framework.version);
    out.put_nonempty_text("cuda", framework.cuda);
    out.put_nonempty_text("cudnn", framework.cudnn);
    out.put_nonempty_text("own_cudnn", framework.own_cudnn);
    out.put_texts("mismatches", framework.mismatches);
    out.close();
  }
  out.close();
  out.close();
}

namespace {

// Streamed: the document's members one by one, each written from the values as it is reached.
void write_json(Sink& sink, const ClosureView& view, const WriteStyle&) {
  const ReportInput& input = view.input();
  const env::Environment& environment = *input.environment;
  const graph::Closure& closure = *input.closure;
  const graph::ClosureRequest& request = *input.request;

  JsonStream out(sink);
  out.open_object();
  out.put_text("schema", kReportSchema);
  out.put_text("tool_version", input.tool_version);
  out.put_text("generated_at", input.generated_at);

  out.open_object("request");
  out.put_text("kind", request.loads.empty() ? "startup" : "load");
  out.put_text("program", request.program);
  out.put_bool("program_is_host", request.program_is_host);
  out.put_nonempty_text("profile", input.profile);
  out.put_texts("preload", request.preload);
  out.open_array("loads");
  for (std::size_t i = 0; i < request.loads.size(); ++i) {
    const graph::LoadCall& load = request.loads[i];
    out.open_object();
    out.put_text("name", load.name);
    out.put_nonempty_text("origin", load.origin);
    out.put_text("flags", fmt::format("0x{:x}", load.flags));
    out.put_texts("flag_names", resolve::load_flag_names(load.flags));
    out.put_bool("failure_caught", load.failure_caught);
    if (i < closure.loads.size()) {
      put_outcome(out, "outcome", closure.loads[i]);
    } else {
      out.put_null("outcome");
    }
    out.close();
  }
  out.close();
  out.put_text("wrong_machine_policy", input.policy == resolve::WrongMachinePolicy::Fail ? "fail" : "skip");
  out.put("python", input.expansion ? python_json(*input.expansion) : Json(nullptr));
  out.close();

  std::vector<std::string> assumptions = environment.notes;
  assumptions.push_back(input.policy == resolve::WrongMachinePolicy::Fail
                            ? "a wrong-machine or unloadable file found first fails the load with error 193, as "
                              "Microsoft documents (Dependencies and Wine skip it instead: --wrong-machine skip)"
                            : "a wrong-machine or unloadable file is skipped and the search goes on, as Dependencies "
                              "and Wine do (Microsoft documents error 193: --wrong-machine fail)");
  assumptions.push_back("64-bit Windows: a 32-bit process searches SysWOW64 in place of System32");
  for (const auto& note : closure.notes) assumptions.push_back(note);

  out.open_object("environment");
  out.put_text("source", environment.source);
  out.put_text_or_null("sysroot", environment.sysroot);
  put_folder(out, "app_dir", closure.process.app_dir);
  put_folder(out, "system32", environment.system32);
  put_folder(out, "syswow64", environment.syswow64);
  put_folder(out, "system16", environment.system16);
  put_folder(out, "windows", environment.windows);
  put_folder(out, "cwd", environment.cwd);
  put_path(out, environment);
  out.put_bool("safe_dll_search_mode", environment.safe_dll_search_mode);
  if (input.rules) put_rules_origin(out, input.rules->origin);
  out.open_object("known_dlls");
  out.put_text("source", environment.known_dlls_source);
  out.put_texts("names", dll_keys(environment.known_dlls));
  out.close();
  out.open_object("api_sets");
  out.put_text("source", environment.api_sets.source());
  out.put_number("count", environment.api_sets.size());
  out.close();
  if (request.settings.dll_directory) {
    put_folder(out, "dll_directory", *request.settings.dll_directory);
  } else {
    out.put_null("dll_directory");
  }
  out.open_array("user_dirs");
  for (const auto& folder : request.settings.user_dirs) put_folder(out, {}, folder);
  out.close();
  if (request.settings.default_dirs) {
    out.put_text("default_dirs", fmt::format("0x{:x}", *request.settings.default_dirs));
  } else {
    out.put_null("default_dirs");
  }
  out.open_array("search_order");
  for (const auto& folder : input.search_order) put_searched_folder(out, folder);
  out.close();
  out.put_texts("assumptions", assumptions);
  out.close();

  out.open_object("process");
  out.put_text("machine", pe::machine_name(closure.process_machine));
  out.close();
  out.open_array("modules");
  const auto& owners = view.run().owners;
  for (std::size_t i = 0; i < closure.modules.size(); ++i)
    put_module(out, closure.modules[i], i < owners.size() ? owners[i] : std::nullopt);
  out.close();
  put_outcome(out, "outcome", closure.outcome);
  out.put("verdict", Json{{"tone", std::string(tone_name(view.tone()))},
                          {"text", view.verdict()},
                          {"error", error_json(input.outcome_error)},
                          {"says", input.outcome_says}});
  put_stack(out, "stack", view.stack());
  out.open_array("findings");
  for (std::size_t i = 0; i < input.findings->size(); ++i) {
    Json finding = finding_to_json((*input.findings)[i], input.rules);
    finding["fix_same_as"] = view.same_fix()[i] ? Json(*view.same_fix()[i]) : Json(nullptr);
    finding["plan_steps"] = view.run().plan_steps[i];
    out.put(finding);
  }
  out.close();
  out.put("plan", input.plan ? plan_to_json(*input.plan) : Json(nullptr));
  out.close();
}

}  // namespace

std::vector<PythonLine> python_lines(const recipes::Expansion& expansion, const env::Environment* environment) {
  const env::PythonEnvironment& python = expansion.python;
  auto shown = [&](const std::string& path) { return environment ? env::shown_path(*environment, path) : path; };
  std::vector<PythonLine> lines;
  lines.push_back({false, fmt::format("Python: {}{} ({})", env::layout_name(python.layout),
                                      python.version.empty() ? std::string() : " " + python.version, python.why)});
  // Which process loads the DLLs: with a venv's launcher, not the program the user named.
  if (!python.launcher.empty())
    lines.push_back({true, fmt::format("process: {} loads every DLL; {} is the venv's launcher, which only starts it",
                                       shown(python.interpreter), shown(python.launcher))});
  if (!python.user_site_why.empty()) lines.push_back({true, "user site: " + python.user_site_why});
  for (const recipes::ExpandedRecipe& recipe : expansion.recipes) {
    std::string values;
    for (const auto& [name, value] : recipe.values)
      values += fmt::format("{}{} {}", values.empty() ? "" : ", ", name, value);
    lines.push_back({false, fmt::format("{} {}{}", recipe.package_dir.empty() ? "start-up:" : "import", recipe.id,
                                        values.empty() ? std::string() : " (" + values + ")")});
    if (!recipe.outside_covers.empty()) lines.push_back({true, "note: " + recipe.outside_covers});
    for (const recipes::StepOutcome& step : recipe.steps) {
      // Two steps that came to the same folder (torch's sys.exec_prefix and sys.base_exec_prefix outside a
      // venv) say one thing: shown once; JSON keeps both.
      const std::string text = step.step + ": " + step.outcome;
      if (lines.back().nested && lines.back().text == text) continue;
      lines.push_back({true, text});
    }
  }
  for (const std::string& variable : expansion.variables_used) lines.push_back({true, variable});
  return lines;
}

namespace {

// The typed evidence first, then the rest, as one object.
Json evidence_json(const rules::Finding& finding) {
  if (!finding.folder_mix) return finding.evidence;
  Json evidence{{"folder", finding.folder_mix->folder},
                {"host_folder", finding.folder_mix->host_folder},
                {"mixes", finding.folder_mix->mixes}};
  for (const auto& [key, value] : finding.evidence.items()) evidence[key] = value;
  return evidence;
}

}  // namespace

Json finding_to_json(const rules::Finding& finding, const rules::RuleData* rules) {
  const rules::FailureMode* mode = rules ? rules->failure_mode(finding.failure_mode) : nullptr;
  return Json{{"id", finding.id},
              {"title", finding.title},
              {"failure_mode", finding.failure_mode},
              {"failure_mode_title", mode ? Json(mode->title) : Json(nullptr)},
              {"seed_section", mode && !mode->seed_section.empty() ? Json(mode->seed_section) : Json(nullptr)},
              {"failure_mode_explanation", mode ? Json(mode->explanation) : Json(nullptr)},
              {"severity", std::string(rules::severity_name(finding.severity))},
              {"module", finding.module.empty() ? Json(nullptr) : Json(finding.module)},
              {"message", finding.message},
              {"evidence", evidence_json(finding)},
              {"fix", finding.fix},
              {"placeholders", placeholders_json(finding.placeholders)},
              {"error", error_json(finding.error)},
              {"says", finding.says}};
}

const Writers<ClosureView>& closure_writers() {
  static const Writers<ClosureView> writers{{"text", write_closure_text},
                                            {"json", write_json},
                                            {"markdown", write_closure_markdown},
                                            {"dot", write_closure_dot},
                                            {"html", write_closure_html}};
  return writers;
}

}  // namespace dlldoctor::report
