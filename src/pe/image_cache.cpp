#include "dlldoctor/pe/image_cache.hpp"

namespace dlldoctor::pe {
namespace {

bool covers(const ReadParts& have, const ReadParts& want) {
  return (have.imports || !want.imports) && (have.exports || !want.exports) && (have.resources || !want.resources) &&
         (have.named_in_data || !want.named_in_data);
}

ReadParts either(const ReadParts& a, const ReadParts& b) {
  return {a.imports || b.imports, a.exports || b.exports, a.resources || b.resources,
          a.named_in_data || b.named_in_data};
}

}  // namespace

std::shared_ptr<const Result<Image>> ImageCache::get(const std::string& path, const ReadParts& parts) {
  auto found = images_.find(path);
  if (found != images_.end() && covers(found->second.parts, parts)) return found->second.image;
  // Earlier callers hold the image they were given; the entry now keeps what both wanted.
  const ReadParts wanted = found == images_.end() ? parts : either(found->second.parts, parts);
  const auto bytes = source_ ? source_(path) : nullptr;
  auto image = std::make_shared<const Result<Image>>(
      !bytes           ? read_image_file(path, wanted)
      : bytes->empty() ? Result<Image>(Error{"not a PE file: the file is empty"})
                       : read_image(BoundedReader(bytes->data(), bytes->size()), wanted));
  images_[path] = {wanted, image};
  return image;
}

void ImageCache::put(const std::string& key, Image image) {
  images_[key] = {ReadParts{true, true, true, true}, std::make_shared<const Result<Image>>(std::move(image))};
}

std::vector<std::string> ImageCache::paths() const {
  std::vector<std::string> out;
  out.reserve(images_.size());
  for (const auto& [path, entry] : images_) out.push_back(path);
  return out;
}

}  // namespace dlldoctor::pe
