#pragma once
// The names of the files inside the archives a DLL can be left in, which Windows' loader never opens: an
// Electron app's resources\app.asar (a JSON index after a small header), a zip, and a wheel (a zip). Only
// the index is read, never a member's bytes. The bytes are untrusted: every offset is checked.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dlldoctor/core/bounded_reader.hpp"
#include "dlldoctor/core/result.hpp"

namespace dlldoctor::env {

enum class ArchiveKind { Asar, Zip, Wheel };

// By the file's extension (.asar, .zip, .whl); none for any other file.
std::optional<ArchiveKind> archive_kind(std::string_view file_name);
// "asar", "zip", "wheel": the words the rules' variants use.
const char* archive_kind_name(ArchiveKind kind);

// The paths of the files the archive holds, '/'-separated, as its index lists them. An asar's files marked
// "unpacked" are left out: they are real files in app.asar.unpacked, beside the archive. An error when the
// bytes are not such an archive, or its index does not fit in them or is larger than anyone ships.
Result<std::vector<std::string>> archive_members(const BoundedReader& bytes, ArchiveKind kind);

}  // namespace dlldoctor::env
