#pragma once
// The report formats, one registry per kind of report (closure, scan, inspect, sdk), chosen by name.
// A writer gets the report's view, decided once per run by the stages before it, and only formats
// it: a new format is one more entry, not one more if-chain in every command.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor::report {

// Where a writer's text goes. A writer may hand it over in pieces (inspect's JSON, file by file), so that
// memory does not grow with the report; each piece ends between two characters (never inside one or
// inside a colour sequence, which the terminal filter after it must see whole).
class Sink {
 public:
  virtual ~Sink() = default;
  virtual void put(std::string_view text) = 0;
};

// A sink that keeps everything: tests, and reports that go into another document.
class StringSink : public Sink {
 public:
  void put(std::string_view text) override { text_ += text; }
  const std::string& text() const { return text_; }

 private:
  std::string text_;
};

// When and by what a report was written: the two fields of a report that do not come from the run.
struct Stamp {
  std::string tool_version;
  std::string generated_at;  // the only field that differs between two runs
  // This binary's version, and the time now as ISO 8601 UTC.
  static Stamp now();
  // The same for a time given in seconds since 1970-01-01 UTC.
  static Stamp at(std::int64_t seconds);
};

struct WriteStyle {
  bool color = false;  // colour sequences in the text formats (a terminal)
};

template <typename View>
struct Writer {
  std::string_view name;  // the --format value
  // Every writer makes the bytes of names safe where its text leaves it: the formats for people through
  // TextOut (text_layout.hpp), JSON through JsonStream and json_text.
  void (*write)(Sink& out, const View& view, const WriteStyle& style);
};

template <typename View>
using Writers = std::vector<Writer<View>>;

template <typename View>
const Writer<View>* find_writer(const Writers<View>& writers, std::string_view name) {
  for (const Writer<View>& writer : writers) {
    if (writer.name == name) return &writer;
  }
  return nullptr;
}

// The --format values, in the registry's order (its first is the default).
template <typename View>
std::vector<std::string> writer_names(const Writers<View>& writers) {
  std::vector<std::string> names;
  for (const Writer<View>& writer : writers) names.emplace_back(writer.name);
  return names;
}

}  // namespace dlldoctor::report
