// Load configuration directory: only what tells ARM64EC and ARM64X images apart from plain x64 and ARM64.
#include <fmt/format.h>

#include "pe/pe_view.hpp"

namespace dlldoctor::pe {
namespace {
// IMAGE_LOAD_CONFIG_DIRECTORY64.CHPEMetadataPointer, an 8-byte VA (winnt.h; LLVM's coff_load_configuration64).
constexpr std::uint64_t kChpeMetadataPointer = 200;
}  // namespace

std::uint16_t hybrid_machine(const PeView& view, const DataDirectory& directory, std::uint16_t header_machine,
                             Image& image) {
  // Hybrid images keep a machine older loaders accept in the COFF header; the CHPE metadata marks them,
  // as LLVM's COFFObjectFile::getMachine reads it. x86 CHPE images stay x86 there too.
  if (header_machine != machine::kAmd64 && header_machine != machine::kArm64) return header_machine;
  if (image.format != Format::Pe32Plus || !directory.present()) return header_machine;
  auto config = view.at_rva(directory.rva);
  if (!config) {
    image.warnings.push_back(
        fmt::format("load config directory: RVA {} {}", hex(directory.rva), view.why_unreadable(directory.rva)));
    return header_machine;
  }
  // The structure's own Size says which fields the linker wrote: older ones end before the CHPE pointer.
  auto size = config->u32(0);
  if (!size) {
    image.warnings.push_back("load config directory: its Size field is cut off");
    return header_machine;
  }
  if (*size < kChpeMetadataPointer + 8) return header_machine;
  auto chpe = config->u64(kChpeMetadataPointer);
  if (!chpe) {
    image.warnings.push_back(fmt::format(
        "load config directory: Size {} covers the CHPE metadata pointer, but its section ends first", *size));
    return header_machine;
  }
  if (*chpe == 0) return header_machine;
  return header_machine == machine::kAmd64 ? machine::kArm64Ec : machine::kArm64X;
}

}  // namespace dlldoctor::pe
