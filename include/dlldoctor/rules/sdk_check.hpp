#pragma once
// The build-time side of cuDNN (seed 5.3, LNK1181 "cannot open input file 'cudnn.lib'"): does a folder the
// user unpacked hold a usable SDK (header, import library for the right machine, DLLs that match), and
// which compiler and linker settings point at it.
//
// Its input is a folder the user names on the command line, not an Environment; it looks through the
// same case-insensitive FileSystem as the resolver, so a fake or a fixture tree drives it in tests.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/env/file_system.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/import_library.hpp"
#include "dlldoctor/rules/finding.hpp"
#include "dlldoctor/rules/rule_data.hpp"

namespace dlldoctor::rules {

// Where the zip or installer put the three parts (DOMAIN.md section 3).
enum class SdkLayout {
  Zip,            // bin, include, lib/x64 at the root: 9.x and 8.3+ zips
  ZipCudaPrefix,  // the same under cuda/: 8.2 and older zips
  Installer,      // the 9.x graphical installer: bin/<cuda>/[x64/], include/<cuda>/, lib/<cuda>/x64/
  Unknown,        // none of the above; the zip paths are assumed
};
const char* sdk_layout_name(SdkLayout layout);  // "zip", "zip-cuda-prefix", "installer", "unknown"

struct SdkHeaderVersion {
  int major = 0;
  int minor = 0;
  int patch = 0;
  std::string header;  // the file the macros came from
  // CUDNN_VERSION as cuDNN computes it: M*10000+m*100+p from 9.x on, M*1000+m*100+p before.
  long number() const;
  std::string to_string() const;  // "9.1.0"
};

struct SdkDll {
  std::string path;
  std::string name;  // as on disk
  std::uint16_t machine = 0;
  std::optional<pe::Version> file_version;
  std::string error;  // set when the file is not a readable PE file
};

struct SdkImportLibrary {
  std::string path;
  std::optional<pe::ImportLibrary> contents;
  std::string error;  // set when the file is not a readable library
};

struct SdkCheckOptions {
  std::uint16_t target_machine = pe::machine::kAmd64;  // the platform of the project being built
  // The Windows path of a host path (--sysroot, --map): settings are pasted into a build on that machine.
  std::function<std::optional<std::string>(const std::string&)> windows_path;
};

struct SdkReport {
  std::string root;  // as given, or its Windows path when the options know it
  SdkLayout layout = SdkLayout::Unknown;
  std::string cuda_folder;  // installer layout only: the <cuda> folder used ("12.4")
  // Where the parts are, or belong when missing. Spelled with backslashes when the root is a Windows path.
  std::string sdk_root;  // what CUDNN_ROOT should be: the root, or its cuda\ folder
  std::string include_dir;
  std::string library_dir;
  std::string library;  // library_dir\cudnn.lib
  std::string bin_dir;
  std::optional<SdkHeaderVersion> header_version;
  std::optional<SdkImportLibrary> import_library;  // unset when there is no cudnn.lib
  std::vector<SdkDll> dlls;                        // cudnn*.dll in bin_dir, sorted by name
  std::vector<Finding> findings;                   // failure mode "5.3"
  std::vector<std::string> problems;               // internal: templates without a value (tests require none)

  bool has_errors() const;
};

// The cuDNN version a header states (CUDNN_MAJOR, CUDNN_MINOR, CUDNN_PATCHLEVEL: cudnn_version.h, or cudnn.h
// before 8.0), read from the file at host path `path`; `shown` is the path the result names. nullopt when the
// file is unreadable, too large or lacks one of the three.
std::optional<SdkHeaderVersion> read_cudnn_header(env::FileSystem& files, const std::string& path,
                                                  const std::string& shown);

// An Error when the root is not a folder (the caller's exit status 2); everything wrong inside an existing
// root is a finding.
// Findings come from rules/findings.toml (the sdk-* ids), filled with this folder's paths.
Result<SdkReport> check_cudnn_sdk(const std::string& root, env::FileSystem& files, const RuleData& rules,
                                  const SdkCheckOptions& options = {});

}  // namespace dlldoctor::rules
