#pragma once
// Which installed packages claim a file, from their own manifests: pip's dist-info RECORD (PEP 376), conda's
// conda-meta records, npm's package.json. Reports name a DLL's owner from this, and two packages that both
// install one file are a finding (the one installed last wrote it).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

// How many folders, from a file's own upwards, may be searched for its package's root or manifest
// (build\Release\x64\addon.node is three below its package.json).
inline constexpr int kMaxPackageDepth = 6;

struct PackageClaim {
  enum class Kind { Python, Conda, Npm };
  Kind kind = Kind::Python;
  std::string name;      // nvidia-cudnn-cu12, vc14_runtime, @img/sharp-win32-x64
  std::string version;   // empty when the manifest does not say
  std::string manifest;  // the file read (host path)
};

// Every package whose manifest lists the file at host `path`: the dist-infos of the site-packages folder it
// is in (only those whose top_level.txt names its top folder, or that have none), else the conda-meta records
// of the conda prefix it is in; else the nearest package.json above it (never across node_modules). Empty
// when nothing says. Each folder's facts and each manifest are read once per PackageClaims: the files of one
// process share their folders and packages (torch\lib holds 30 DLLs of one RECORD).
class PackageClaims {
 public:
  explicit PackageClaims(FileSystem& files) : files_(files) {}
  std::vector<PackageClaim> of(const std::string& path);

 private:
  struct Where {
    std::string site, prefix;  // the site-packages folder and the conda prefix above the folder, or empty
    std::vector<PackageClaim> npm;
  };
  struct Dist {
    PackageClaim claim;                         // name and version from the dist-info's folder name, RECORD's path
    std::optional<std::string> top;             // top_level.txt's text, when it has one
    std::optional<std::set<std::string>> keys;  // RECORD's files, read when first needed
  };
  const Where& where(const std::string& folder);
  std::vector<Dist>& dists(const std::string& site);
  const std::map<std::string, std::vector<PackageClaim>>& conda_index(const std::string& prefix);

  FileSystem& files_;
  std::map<std::string, Where> folders_;
  std::map<std::string, std::vector<Dist>> sites_;
  std::map<std::string, std::map<std::string, std::vector<PackageClaim>>> prefixes_;
};

}  // namespace dlldoctor::env
