#include "dlldoctor/pe/image_cache.hpp"

#include "dlldoctor/pe/reader.hpp"

namespace dlldoctor::pe {

std::shared_ptr<const Result<Image>> ImageCache::get(const std::string& path) {
  auto found = images_.find(path);
  if (found != images_.end()) return found->second;
  auto image = std::make_shared<const Result<Image>>(read_image_file(path));
  images_.emplace(path, image);
  return image;
}

void ImageCache::put(const std::string& key, Image image) {
  images_[key] = std::make_shared<const Result<Image>>(std::move(image));
}

}  // namespace dlldoctor::pe
