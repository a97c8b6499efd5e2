#pragma once
// A fix command is PowerShell, run on the Windows machine. A path of this machine with no Windows path
// (a folder copied to Linux, no --sysroot or --map over it) must not go into one as it is: pasted there it
// names nothing, or the wrong folder. Its folder is written as a named placeholder instead
// (<folder of app.exe>\cudnn64_9.dll, <...\cuda\bin>), and the fix says which folder of this machine each
// placeholder stands for. Names depend only on the run's folders, so every finding, the plan and every
// format of one run use the same ones.
#include <string>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/inventory.hpp"
#include "dlldoctor/graph/dependency_graph.hpp"
#include "dlldoctor/rules/finding.hpp"

namespace dlldoctor::rules {

class CommandPaths {
 public:
  CommandPaths() = default;
  // `program`: the program's host path (its folder is "<folder of NAME>"); `folders`: the other folders
  // the run knows, each named by the shortest tail of its path (two parts at least) that no other has.
  CommandPaths(const std::string& program, std::vector<std::string> folders);
  // The program, the current folder, the PATH entries, the folders of every file the closure probed and
  // of every copy the inventory found.
  static CommandPaths of(const env::Environment& environment, const graph::Closure& closure,
                         const env::Inventory& inventory);

  // `text` as a command holds it: unchanged unless it is a host path with no Windows path (an absolute
  // path starting with '/', which no Windows path does). `used` gets the placeholder when one is written.
  std::string in_command(const std::string& text, std::vector<Placeholder>* used = nullptr) const;

 private:
  struct Named {
    std::string host;
    std::vector<std::string> parts;
    std::string name;
  };
  std::string name_for(const std::string& folder, const std::vector<std::string>& parts) const;
  std::string program_folder_;
  std::string program_name_;
  std::vector<Named> folders_;
};

// Each placeholder once, at its first use (two folders the run did not list may share a name: both are
// kept, so that the comments show it).
std::vector<Placeholder> first_uses(const std::vector<Placeholder>& used);

}  // namespace dlldoctor::rules
