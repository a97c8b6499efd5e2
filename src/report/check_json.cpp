// `dlldoctor check --format json`: the dlldoctor.check/1 object (docs/check-json.md), streamed section by
// section. Paths as the text shows them (Windows spelling when known); host paths only in "host" fields.
#include <fmt/format.h>

#include "dlldoctor/env/python_env.hpp"
#include "dlldoctor/report/check_report.hpp"
#include "dlldoctor/report/closure_report.hpp"
#include "report/finding_formats.hpp"
#include "report/plan_report.hpp"
#include "report/report_json.hpp"

namespace dlldoctor::report {
namespace {
// Named, so that a unity build (the fuzz targets) can put this file beside another one's helpers.
namespace check {

void put_file(JsonStream& out, std::string_view key, const session::CheckedFile& file) {
  out.open_object(key);
  out.put_text("path", file.shown);
  out.put_text("host", file.path);
  out.put_text_or_null("version", file.version);
  out.close();
}

void put_file_or_null(JsonStream& out, std::string_view key, const std::optional<session::CheckedFile>& file) {
  if (file) return put_file(out, key, *file);
  out.put_null(key);
}

// What a process's load of `dll` gave: the copy, or the failure.
void put_load(JsonStream& out, const session::ExplainRun& run, const std::string& dll) {
  const graph::Module* main = nullptr;
  for (const graph::Module& module : run.closure().modules) {
    if (module.key == DllName(dll) && !module.is_root && module.resolution.path) main = &module;
  }
  if (main) {
    out.open_object("loads");
    out.put_text("path", main->resolution.windows_path.value_or(*main->resolution.path));
    out.put_text("host", *main->resolution.path);
    const auto& version = main->resolution.image ? main->resolution.image->file_version : std::nullopt;
    out.put_text_or_null("version", version ? std::optional<std::string>(version->to_string()) : std::nullopt);
    out.put_text("found_by", resolve::step_name(main->resolution.found_by));
    out.close();
  } else {
    out.put_null("loads");
  }
  put_outcome(out, "outcome", run.closure().outcome);
  out.put("verdict", Json{{"tone", std::string(tone_name(run.verdict.tone))}, {"text", run.verdict.text}});
}

void put_driver(JsonStream& out, const session::DriverCheck& driver) {
  out.open_object("driver");
  out.put_bool("looked", driver.looked);
  put_file_or_null(out, "nvcuda", driver.nvcuda);
  out.put_nonempty_text("driver", driver.driver);
  out.put_nonempty_text("newest_cuda", driver.newest_cuda);
  out.open_array("packages");
  for (const session::DriverPackage& package : driver.packages) {
    out.open_object();
    out.put_text("folder", package.folder);
    out.put_nonempty_text("driver", package.driver);
    out.put_bool("active", package.active);
    out.open_array("dlls");
    for (const session::CheckedFile& file : package.dlls) put_file(out, {}, file);
    out.close();
    out.close();
  }
  out.close();
  out.close();
}

void put_toolkits(JsonStream& out, const std::vector<session::ToolkitCheck>& toolkits) {
  out.open_array("toolkits");
  for (const session::ToolkitCheck& toolkit : toolkits) {
    out.open_object();
    out.put_text("root", toolkit.shown_root);
    out.put_nonempty_text("release", toolkit.release);
    out.put_text_or_null("bin", toolkit.bin.empty() ? std::nullopt : std::optional<std::string>(toolkit.shown_bin));
    put_file_or_null(out, "cudart", toolkit.cudart);
    out.put_bool("on_path", toolkit.on_path);
    out.put_texts("named_by", toolkit.named_by);
    out.close();
  }
  out.close();
}

void put_cudnn(JsonStream& out, const std::vector<session::CudnnCheck>& families) {
  out.open_array("cudnn");
  for (const session::CudnnCheck& cudnn : families) {
    out.open_object();
    out.put_text("family", cudnn.family);
    out.put_text("name", cudnn.name);
    out.put_text("dll", cudnn.dll);
    out.put_bool("judged", cudnn.judged);
    out.open_object("new_process");
    put_load(out, cudnn.process, cudnn.dll);
    out.close();
    out.open_array("copies");
    for (const session::CudnnCopy& copy : cudnn.copies) {
      out.open_object();
      put_file(out, "main", copy.main);
      out.put_text("found_as", copy.found_as);
      out.put_text_or_null("python", copy.python.empty() ? std::nullopt : std::optional<std::string>(copy.python));
      out.put_bool("loads", copy.wins);
      put_owner(out, copy.owner);
      out.put_texts("missing", copy.missing);
      out.put_texts("other_versions", copy.other_versions);
      out.put_texts("renamed", copy.renamed);
      if (copy.zone_id) {
        out.put_number("zone_id", static_cast<std::uint64_t>(*copy.zone_id));
      } else {
        out.put_null("zone_id");
      }
      if (copy.header) {
        out.put("header", Json{{"path", copy.header_path}, {"version", *copy.header}});
      } else {
        out.put_null("header");
      }
      out.close();
    }
    out.close();
    out.close();
  }
  out.close();
}

void put_pythons(JsonStream& out, const std::vector<session::PythonCheck>& pythons) {
  out.open_array("pythons");
  for (const session::PythonCheck& python : pythons) {
    out.open_object();
    out.put_text("program", python.shown);
    out.put_text("found_by", python.found_by);
    out.put_text_or_null("problem", python.problem.empty() ? std::nullopt : std::optional<std::string>(python.problem));
    out.put_text("layout", env::layout_name(python.python.layout));
    out.put_nonempty_text("version", python.python.version);
    out.open_array("ctypes");
    for (const session::CtypesCheck& ctypes : python.ctypes) {
      out.open_object();
      out.put_text("dll", ctypes.dll);
      put_load(out, ctypes.run, ctypes.dll);
      out.close();
    }
    out.close();
    out.open_array("frameworks");
    for (const session::ExplainRun& framework : python.frameworks) {
      out.open_object();
      out.put_text("import", framework.expansion->recipes.back().id);
      out.put("verdict",
              Json{{"tone", std::string(tone_name(framework.verdict.tone))}, {"text", framework.verdict.text}});
      put_outcome(out, "outcome", framework.closure().outcome);
      put_stack(out, "stack", framework.stack);
      out.close();
    }
    out.close();
    out.put_texts("not_judged", python.not_judged);
    out.close();
  }
  out.close();
}

}  // namespace check
}  // namespace

void write_check_json(Sink& sink, const CheckView& view, const WriteStyle&) {
  const session::CheckRun& run = view.run();
  const env::Environment& environment = *run.environment;
  JsonStream out(sink);
  out.open_object();
  out.put_text("schema", kCheckSchema);
  out.put_text("tool_version", view.stamp().tool_version);
  out.put_text("generated_at", view.stamp().generated_at);
  out.open_object("environment");
  out.put_text("source", environment.source);
  out.put_text_or_null("sysroot", environment.sysroot);
  put_folder(out, "system32", environment.system32);
  put_path(out, environment);
  put_rules_origin(out, run.rules->origin);
  out.put_texts("notes", environment.notes);
  out.close();
  out.put("verdict", Json{{"tone", std::string(tone_name(run.verdict.tone))}, {"text", run.verdict.text}});
  check::put_driver(out, run.driver);
  check::put_toolkits(out, run.toolkits);
  check::put_cudnn(out, run.cudnn);
  out.open_array("msvc_runtime");
  for (const session::CheckedFile& file : run.msvc_runtime) check::put_file(out, {}, file);
  out.close();
  check::put_pythons(out, run.pythons);
  out.open_array("findings");
  const FindingsShown& shown = view.findings_shown();
  const std::vector<std::optional<std::size_t>> same = same_fix_as(shown.findings);
  for (std::size_t i = 0; i < run.findings.size(); ++i) {
    Json finding = finding_to_json(run.findings[i].finding, run.rules);
    finding["processes"] = run.findings[i].processes;
    finding["fix_same_as"] = same[i] ? Json(*same[i]) : Json(nullptr);
    finding["plan_steps"] = run.plan_steps[i];
    out.put(finding);
  }
  out.close();
  out.put("plan", run.plan ? plan_to_json(*run.plan) : Json(nullptr));
  out.close();
}

}  // namespace dlldoctor::report
