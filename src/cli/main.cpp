#include <CLI/CLI.hpp>

#include "cli/commands.hpp"

int main(int argc, char** argv) {
  using namespace dlldoctor::cli;
  CLI::App app{"dlldoctor: explains why a Windows program cannot load its DLLs, or loads the wrong copy"};
  app.set_version_flag("--version", std::string("dlldoctor ") + DLLDOCTOR_VERSION);
  app.require_subcommand(1);
  Runner inspect = setup_inspect(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitFailure;
  }
  if (app.got_subcommand("inspect")) return inspect();
  return kExitFailure;
}
