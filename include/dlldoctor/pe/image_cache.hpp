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
  // An image that no file holds (a fix plan's stand-in for a DLL an installer would bring): get(key)
  // returns it from now on.
  void put(const std::string& key, Image image);

 private:
  std::map<std::string, std::shared_ptr<const Result<Image>>> images_;
};

}  // namespace dlldoctor::pe
