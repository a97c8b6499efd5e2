// `dlldoctor inspect FILE...`: everything the PE reader knows about each file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/report/image_report.hpp"
#include "dlldoctor/report/json_text.hpp"

namespace dlldoctor::cli {
namespace {

struct InspectOptions {
  std::vector<std::string> files;
  std::string format = "text";
  std::string output;
};

int run_inspect(const InspectOptions& options) {
  int status = kExitOk;
  std::string text;
  report::Json documents = report::Json::array();
  pe::ReadParts parts;
  parts.named_in_data = true;
  for (const std::string& path : options.files) {
    auto image = pe::read_image_file(path, parts);
    if (!image) {
      status = kExitFailure;
      print_message(path + ": " + image.error().message);
      if (options.format == "json") documents.push_back(report::image_error_to_json(path, image.error().message));
      continue;
    }
    if (options.format == "json") {
      documents.push_back(report::image_to_json(path, *image));
    } else {
      report::append_image_text(text, path, *image);
      // On stdout, written file by file, so memory does not grow with the number of files; -o FILE gets
      // the whole text at once (write_output replaces the file).
      if (!options.output.empty()) continue;
      if (write_output(text, "") != kExitOk) return kExitFailure;
      text.clear();
    }
  }
  if (options.format == "json") {
    // One file: its object; several: an array of them, in the order given.
    const report::Json& out = documents.size() == 1 ? documents[0] : documents;
    text = report::json_text(out);
  }
  if (write_output(text, options.output) != kExitOk) return kExitFailure;
  return status;
}

}  // namespace

Runner setup_inspect(CLI::App& app) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand("inspect",
                                         "Print what the PE reader finds in each file: machine, "
                                         "imports, delay imports, exports, versions, manifest, DLLs named in its data");
  command->add_option("files", options->files, "PE files (EXE or DLL)")->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"text", "json"}))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  command->footer(
      "Examples:\n  dlldoctor inspect cudnn64_9.dll\n  dlldoctor inspect --format json -o app.json app.exe");
  return [options] { return run_inspect(*options); };
}

}  // namespace dlldoctor::cli
