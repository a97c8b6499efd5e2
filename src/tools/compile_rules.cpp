// Build step: writes the compiled form of RULES_FOLDER/*.toml (rules/compiled_rules.hpp) to OUTPUT, which the
// build then embeds into the binary, after checking that the folder's rules are valid on their own; a
// malformed rule file fails the build with its file:line.
#include <fmt/format.h>

#include "dlldoctor/core/output_file.hpp"
#include "dlldoctor/rules/rule_data.hpp"
#include "rules/compiled_rules.hpp"

int main(int argc, char** argv) {
  using namespace dlldoctor;
  if (argc != 3) {
    fmt::print(stderr, "usage: {} RULES_FOLDER OUTPUT\n", argc > 0 ? argv[0] : "dlldoctor_compile_rules");
    return 2;
  }
  const std::string folder = argv[1];
  // The rules as load_rules leaves them, checked across files: a run that decodes them has nothing to check.
  auto data = rules::load_rules({folder});
  if (!data) {
    fmt::print(stderr, "{}\n", data.error().message);
    return 1;
  }
  auto files = rules::rule_files(folder);
  if (!files) {
    fmt::print(stderr, "{}\n", files.error().message);
    return 1;
  }
  auto bytes = rules::compile_rules(*data, *files);
  if (!bytes) {
    fmt::print(stderr, "{}\n", bytes.error().message);
    return 1;
  }
  auto out = OutputFile::open(argv[2]);
  if (!out || !out->write(*bytes)) {
    fmt::print(stderr, "{}: cannot write\n", argv[2]);
    return 1;
  }
  if (std::optional<Error> error = out->commit()) {
    fmt::print(stderr, "{}\n", error->message);
    return 1;
  }
  return 0;
}
