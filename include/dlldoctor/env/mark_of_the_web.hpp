#pragma once
// Mark of the Web: the Zone.Identifier stream Windows attaches to downloaded files and that archive tools
// copy to what they extract. On Windows it is an alternate data stream; on a Linux disk, extraction tools
// leave it as a file named "NAME:Zone.Identifier" beside NAME. The loader ignores it; SmartScreen,
// Defender and Smart App Control act on it (DOMAIN.md §5).
#include <optional>
#include <string>

#include "dlldoctor/env/file_system.hpp"

namespace dlldoctor::env {

struct MarkOfTheWeb {
  int zone_id = 0;       // 3 = Internet
  std::string host_url;  // where it came from, when recorded
  std::string stream;    // where the mark was read
};

std::optional<MarkOfTheWeb> read_mark_of_the_web(FileSystem& files, const std::string& path);

// The INI text of a Zone.Identifier stream; nullopt when it holds no [ZoneTransfer] ZoneId.
std::optional<MarkOfTheWeb> parse_zone_identifier(const std::string& text);

}  // namespace dlldoctor::env
