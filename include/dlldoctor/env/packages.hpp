#pragma once
// Which installed packages claim a file, from their own manifests: pip's dist-info RECORD (PEP 376), conda's
// conda-meta records, npm's package.json. Reports name a DLL's owner from this, and two packages that both
// install one file are a finding (the one installed last wrote it).
#include <string>
#include <vector>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

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
// when nothing says.
std::vector<PackageClaim> package_claims(const std::string& path, FileSystem& files);

}  // namespace dlldoctor::env
