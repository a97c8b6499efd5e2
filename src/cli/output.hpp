#pragma once
// Where a command's report goes: stdout, or the file named by -o. Errors always go to stderr.
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "core/fs.hpp"
#include "dlldoctor/core/output_file.hpp"
#include "dlldoctor/report/fix_script.hpp"
#include "dlldoctor/report/writers.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::cli {

// "dlldoctor: MESSAGE" on stderr, each line of it so prefixed, made safe for a terminal: messages quote paths
// and names from files.
inline void print_message(const std::string& message) {
  std::string lines;
  for (std::size_t start = 0;;) {
    const std::size_t end = message.find('\n', start);
    lines += "dlldoctor: " + report::safe_for_terminal(message.substr(start, end - start)) + "\n";
    if (end == std::string::npos) break;
    start = end + 1;
  }
  std::fwrite(lines.data(), 1, lines.size(), stderr);
}

// A command refused: the message, and the exit status that says so.
inline int fail(const std::string& message) {
  print_message(message);
  return kExitFailure;
}

// What a command built for its report (the machine: its rules, every image read and its mapping; the run)
// is left to the end of the process instead of freed piece by piece: the report is out, the process ends next,
// and the system takes the memory and the mappings back at once, in less time than freeing them took
// (docs/PERFORMANCE.md). It stays reachable, so a leak checker does not count it.
template <typename T>
void leave_to_process_exit(T&& object) {
  static_assert(std::is_nothrow_move_constructible_v<std::decay_t<T>>, "kept by moving, never by copying");
  static auto* const kept = new std::vector<std::shared_ptr<void>>();
  kept->push_back(std::make_shared<std::decay_t<T>>(std::forward<T>(object)));
}

// Where a report goes, piece by piece as its writer hands it over: stdout, or the file -o names
// ("" or "-" = stdout). The writers made the pieces safe (report::TextOut, JsonStream). A file is written
// whole or not at all (OutputFile): opened at the first piece, put in place by finish().
class OutputSink : public report::Sink {
 public:
  explicit OutputSink(std::string path) : path_(std::move(path)) {}
  OutputSink(const OutputSink&) = delete;
  OutputSink& operator=(const OutputSink&) = delete;
  void put(std::string_view text) override;
  // Puts the file in place: kExitOk, or kExitFailure (with a message) if the report could not be written.
  int finish();

 private:
  bool to_stdout() const { return path_.empty() || path_ == "-"; }
  bool open();

  std::string path_;
  std::optional<OutputFile> file_;
  std::optional<std::string> error_;
  bool failed_ = false;
};

// Writes a whole text that no report writer made (--version, a snapshot, the fix script) to `path` as
// OutputSink does, made safe for a terminal first: the rules folder or a path in it may hold any bytes.
inline int write_output(const std::string& contents, const std::string& path) {
  OutputSink out(path);
  out.put(report::safe_for_terminal(contents));
  return out.finish();
}

// kExitFailure, with a message, when the file `output` that `flag` names (-o, --fix-script) is one the run
// read: the report would take the program's place. kExitOk otherwise, and for stdout.
int refuse_writing_over(const std::string& flag, const std::string& output, const std::vector<FileRead>& read);

// Whether `writers` has the --format `format`; if not, says so, with the formats it has.
template <typename View>
bool has_writer(const report::Writers<View>& writers, const std::string& format, const std::string& what) {
  if (report::find_writer(writers, format)) return true;
  std::string names;
  for (const std::string& name : report::writer_names(writers)) names += (names.empty() ? "" : ", ") + name;
  print_message(what + " has no --format " + format + " (it writes " + names + ")");
  return false;
}

// The report `view` in the --format `format`, chosen from `writers`, to `path`. A format the report has
// no writer for is refused before anything is written (kExitFailure).
template <typename View>
int write_report(const report::Writers<View>& writers, const std::string& format, const View& view,
                 const std::string& path, const report::WriteStyle& style, const std::string& what) {
  if (!has_writer(writers, format, what)) return kExitFailure;
  const report::Writer<View>* writer = report::find_writer(writers, format);
  OutputSink out(path);
  writer->write(out, view, style);
  return out.finish();
}

// --fix-script PATH (nothing when empty): the checked plan as PowerShell, with a byte order mark for a file,
// or a message that there is nothing to mend. kExitFailure when the plan names a folder the Windows machine
// does not have, or the file cannot be written.
int write_fix_script(const plan::Plan* plan, const std::string& path, report::ScriptHeader header);

// The output habits of ripgrep, fd and most CLIs, the same on every command that prints a report: --json
// for --format json, -q/--quiet for the exit status alone, and (where the text has colours) --color
// auto|always|never beside --no-color.
struct OutputHabits {
  bool json = false;
  bool quiet = false;
  std::string color = "auto";
};

// Binds them through `bind` (a FlagBinder, or a CommandBinder for a subcommand).
template <typename Binder>
void bind_output_habits(Binder& bind, OutputHabits& habits, bool colours) {
  bind.flag("--json", habits.json, "The same as --format json");
  bind.flag("-q,--quiet", habits.quiet, "Print no report: the exit status alone says the verdict (-o still writes)");
  if (!colours) return;
  if (CLI::Option* color = bind.option("--color", habits.color,
                                       "Colours in text output: auto (on a terminal, NO_COLOR unset), always, never"))
    color->check(CLI::IsMember({"auto", "always", "never"}))->capture_default_str();
}

// Applies them before anything is written: --json sets `format`, -q sends stdout nowhere. kExitFailure, with a
// message, when they contradict the other flags (--json with another --format, --color always with
// --no-color); kExitOk otherwise.
int apply_output_habits(const OutputHabits& habits, std::string& format, bool no_color);

// Whether a stream is a terminal (colours, progress): isatty on POSIX, _isatty on Windows.
bool is_terminal(std::FILE* stream);

// Colour in text: --color always, or (auto) only on a terminal, never with --no-color, --color never, -o FILE,
// or NO_COLOR set to a non-empty value (no-color.org).
bool use_color(const OutputHabits& habits, bool no_color_flag, const std::string& output_file);

}  // namespace dlldoctor::cli
