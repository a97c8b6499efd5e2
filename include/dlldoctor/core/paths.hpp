#pragma once
// Windows paths and PATH-like lists, as text: either separator, since users and mounted disks mix them.
// The one place that splits them, so that every stage agrees on what the last component and the folder are.
#include <string>
#include <string_view>
#include <vector>

namespace dlldoctor {

// The last path component, for either separator; the whole text when it holds no separator.
std::string base_name(std::string_view path);

// Everything before the last separator; "." (the current folder) when there is none.
std::string folder_of(std::string_view path);

// Whether two paths name the same file as Windows compares them: ASCII case-insensitively, either
// separator. (Host paths on Linux differ only in case rarely; live Windows spells one folder several ways.)
bool same_path(std::string_view a, std::string_view b);

// Whether `path` lies below `folder` (not `folder` itself), compared as same_path does and at a separator:
// C:\tools\cudnn-8.9 is not below C:\tools\cudnn.
bool is_below(std::string_view path, std::string_view folder);

// The entries of a ';'-separated list, empty ones kept: what an empty entry means (the current folder for
// the loader, nothing for a lookup) is the caller's decision. An empty text is one empty entry.
std::vector<std::string> split_path_list(std::string_view list);

}  // namespace dlldoctor
