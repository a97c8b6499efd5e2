#pragma once
// The search-order simulator: replays the loader's documented rules (DOMAIN.md §1) for one requested
// name and records every existing candidate in order, the winner, and why.
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/env/environment.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/env/mark_of_the_web.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/image_cache.hpp"
#include "dlldoctor/resolve/load_request.hpp"
#include "dlldoctor/resolve/search_step.hpp"

namespace dlldoctor::resolve {

struct SearchFolder {
  SearchStep step;
  env::FolderRef folder;
};

enum class Verdict {
  Chosen,
  Shadowed,      // exists, but an earlier candidate (or the loaded module, or KnownDLLs) won
  WrongMachine,  // the machine does not fit the process
  NotLoadable,   // not a PE image (empty, truncated, quarantined)
};
std::string_view verdict_name(Verdict verdict);

struct Candidate {
  SearchStep step;
  std::string path;  // host path; empty for an assumed system DLL
  std::optional<std::string> windows_path;
  std::optional<std::uint16_t> machine;
  std::optional<pe::Version> file_version;
  Verdict verdict = Verdict::Shadowed;
  bool assumed = false;
  std::string problem;  // NotLoadable: what the PE reader said
  std::optional<env::MarkOfTheWeb> mark_of_the_web;
  std::shared_ptr<const pe::Image> image;  // when it could be read (the rules compare copies' exports)
};

enum class Failure {
  None,
  NotFound,  // error 126
  BadImage,  // error 193: wrong machine or not a PE, found first (documented behaviour)
};

struct Resolution {
  std::string requested;
  Failure failure = Failure::None;
  SearchStep found_by = SearchStep::Path;
  std::optional<std::string> path;  // host path of the chosen file
  std::optional<std::string> windows_path;
  bool assumed = false;                     // a stock system DLL taken as present (no --sysroot)
  std::optional<std::string> api_set_host;  // for API set names: the DLL the schema maps it to
  // An API set whose schema maps it to another set and round to itself ("a -> b -> a"): unresolved (126).
  std::vector<std::string> api_set_cycle;
  std::vector<Candidate> candidates;       // every existing file probed, in search order
  std::vector<SearchFolder> searched;      // the folders in the order they were searched
  std::shared_ptr<const pe::Image> image;  // the chosen file, when it was read
};

class Resolver {
 public:
  Resolver(const env::Environment& environment, env::FileSystem& files, pe::ImageCache& images,
           WrongMachinePolicy policy)
      : environment_(environment), files_(files), images_(images), policy_(policy) {}

  // The folders searched for a bare name, in order.
  std::vector<SearchFolder> search_order(const ProcessState& process, const SearchContext& context) const;

  // `name` is a bare DLL name (an import, LoadLibrary("x.dll")) or a path (LoadLibrary("C:\\x\\y.dll")).
  // `importer` is the module asking (API set exceptions depend on it).
  Resolution resolve(std::string_view name, const ProcessState& process, const SearchContext& context,
                     std::string_view importer = {});

  const env::FolderRef& system_folder(std::uint16_t process_machine) const;
  // A file read through the same cache, and with the same parts, as the candidates (the program itself).
  std::shared_ptr<const Result<pe::Image>> read(const std::string& path);
  // The DLL names in a file's read-only data (pe::ReadParts::named_in_data), read in the same pass as its
  // tables; names those tables hold are left out.
  std::vector<std::string> names_in_data(const std::string& path) const;
  WrongMachinePolicy policy() const { return policy_; }

  // DLLs that come with a driver (rules: families of kind "driver", nvcuda.dll, vulkan-1.dll): with no
  // Windows system to look at (assume_system_dlls) and no snapshot's listing, taken as present in the
  // system folder like the stock Windows DLLs, so that the driver's absence is never a guess.
  void assume_also(std::set<DllName> names) { assumed_too_ = std::move(names); }

 private:
  bool assumes(const DllName& name, bool wow64, std::optional<pe::Version>* version = nullptr) const;
  Candidate probe(SearchStep step, const std::string& path, std::uint16_t process_machine,
                  std::shared_ptr<const pe::Image>& image);
  void resolve_path(std::string_view name, const ProcessState& process, Resolution& resolution);

  const env::Environment& environment_;
  env::FileSystem& files_;
  pe::ImageCache& images_;
  WrongMachinePolicy policy_;
  std::set<DllName> assumed_too_;
};

// Can a process of `process_machine` map a DLL of `dll_machine`? (ARM64X and ARM64EC images serve
// more than one.)
bool machine_fits(std::uint16_t process_machine, std::uint16_t dll_machine);

// True when the name holds a folder part (LoadLibrary then does no search).
bool has_path(std::string_view name);

}  // namespace dlldoctor::resolve
