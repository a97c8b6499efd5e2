// `dlldoctor inspect FILE...`: everything the PE reader knows about each file.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/output.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/report/image_report.hpp"

namespace dlldoctor::cli {
namespace {

struct InspectOptions {
  std::vector<std::string> files;
  std::string format = "text";
  std::string output;
  OutputHabits habits;
};

int run_inspect(const InspectOptions& given) {
  InspectOptions options = given;
  if (apply_output_habits(options.habits, options.format, false) != kExitOk) return kExitFailure;
  int status = kExitOk;
  pe::ReadParts parts;
  parts.named_in_data = true;
  report::ImageFiles files;
  files.paths = options.files;
  files.read = [&](const std::string& path) {
    auto image = pe::read_image_file(path, parts);
    if (!image) {
      status = kExitFailure;
      print_message(path + ": " + image.error().message);
    }
    return image;
  };
  std::vector<FileRead> read;
  for (const std::string& file : options.files) read.push_back({file, "a file to inspect"});
  if (refuse_writing_over("-o", options.output, read) != kExitOk) return kExitFailure;
  // Written file by file as each is read, so memory does not grow with the number of files.
  if (write_report(report::image_writers(), options.format, files, options.output, {}, "inspect") != kExitOk)
    return kExitFailure;
  return status;
}

}  // namespace

Runner setup_inspect(CLI::App& app, bool bind_flags) {
  auto options = std::make_shared<InspectOptions>();
  CLI::App* command = app.add_subcommand("inspect",
                                         "Print what the PE reader finds in each file: machine, "
                                         "imports, delay imports, exports, versions, manifest, DLLs named in its data");
  if (!bind_flags) return {};
  command->add_option("files", options->files, "PE files (EXE or DLL)")->required();
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember(report::writer_names(report::image_writers())))
      ->capture_default_str();
  command->add_option("-o,--output", options->output, "Write the report to this file instead of stdout");
  CommandBinder bind(*command);
  bind_output_habits(bind, options->habits, false);
  command->footer(
      "Examples:\n  dlldoctor inspect cudnn64_9.dll\n  dlldoctor inspect --format json -o app.json app.exe");
  return [options] { return run_inspect(*options); };
}

}  // namespace dlldoctor::cli
