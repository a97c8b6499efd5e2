#pragma once
// Every file the resolver probes is read once per run, whatever the number of searches that reach it.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "dlldoctor/core/result.hpp"
#include "dlldoctor/pe/image.hpp"
#include "dlldoctor/pe/reader.hpp"

namespace dlldoctor::pe {

class ImageCache {
 public:
  // Where a file's bytes come from when it is not on a disk (env::MemoryFileSystem::memory_bytes): null
  // for a file the cache maps itself.
  using Source = std::function<std::shared_ptr<const std::vector<std::uint8_t>>(const std::string& path)>;
  ImageCache() = default;
  explicit ImageCache(Source source) : source_(std::move(source)) {}

  // The file at `path` with at least `parts` read. A file is read again only for a caller that wants a
  // part no earlier caller asked for (the closure's names in data, after the inventory read the headers).
  std::shared_ptr<const Result<Image>> get(const std::string& path, const ReadParts& parts = {});
  // An image that no file holds (a fix plan's stand-in for a DLL an installer would bring): get(key)
  // returns it from now on, whatever the parts asked for.
  void put(const std::string& key, Image image);
  // The files read so far (and the keys of images put), in name order.
  std::vector<std::string> paths() const;

 private:
  struct Entry {
    ReadParts parts;
    std::shared_ptr<const Result<Image>> image;
  };
  std::map<std::string, Entry> images_;
  Source source_;
};

}  // namespace dlldoctor::pe
