#pragma once
// Every file the resolver probes is read once per run, whatever the number of searches that reach it.
#include <map>
#include <memory>
#include <string>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"

namespace dlldoctor::pe {

class ImageCache {
 public:
  std::shared_ptr<const Result<Image>> get(const std::string& path);

 private:
  std::map<std::string, std::shared_ptr<const Result<Image>>> images_;
};

}  // namespace dlldoctor::pe
