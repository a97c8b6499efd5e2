#include "scan/walker.hpp"

#include "core/utf8.hpp"

#ifdef _WIN32
#include "core/utf8_windows.hpp"
#include "core/windows_api.hpp"
#else
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <exception>
#include <string>
#endif

namespace dlldoctor::scan {
namespace {

std::string join(const std::string& folder, const char* name) {
#ifdef _WIN32
  constexpr char kSeparator = '\\';
#else
  constexpr char kSeparator = '/';
#endif
  std::string path = folder;
  if (!path.empty() && path.back() != '/' && path.back() != '\\') path += kSeparator;
  path += name;
  return path;
}

// A file worth reading: a DLL name the scan looks for (or any DLL with --all-dlls).
void consider(const std::string& folder, const char* name, const ScanOptions& options, std::vector<ScannedFile>& files,
              WalkCounters& counters) {
  auto key = dll_key(name);
  if (!key || (!options.all_dlls && !options.names.count(key->first))) return;
  ScannedFile file;
  file.path = join(folder, name);
  file.name = name;
  file.key = key->first;
  file.backup = key->second;
  CandidateRead read = CandidateRead::Read;
  // A worker's exception would end the process (std::terminate): it becomes this file's entry instead.
  try {
    read = read_candidate(file);
  } catch (const std::exception& e) {
    file.error = std::string("dlldoctor could not read it: ") + e.what();
  }
  switch (read) {
    case CandidateRead::Read: files.push_back(std::move(file)); break;
    case CandidateRead::Vanished:  // listed a moment ago, gone now
      ++counters.vanished;
      break;
    case CandidateRead::Denied: counters.unreadable_files.push_back(std::move(file.path)); break;
  }
}

}  // namespace

#ifndef _WIN32

bool is_folder(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && S_ISDIR(info.st_mode);
}

bool exists_but_not_folder(const std::string& path) {
  struct stat info {};
  return stat(path.c_str(), &info) == 0 && !S_ISDIR(info.st_mode);
}

void list_folder(const std::string& folder, const ScanOptions& options, std::vector<std::string>& folders,
                 std::vector<ScannedFile>& files, WalkCounters& counters, SeenFolders& seen) {
  const int fd = open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) {
      ++counters.vanished;
    } else {
      counters.unreadable.push_back(folder);
    }
    return;
  }
  struct stat info {};
  if (fstat(fd, &info) != 0 || !seen.first_visit(info.st_dev, info.st_ino)) {
    close(fd);
    return;
  }
  DIR* dir = fdopendir(fd);
  if (!dir) {
    close(fd);
    counters.unreadable.push_back(folder);
    return;
  }
  ++counters.folders;
  while (const dirent* entry = readdir(dir)) {
    const char* name = entry->d_name;
    if (name[0] == '.' && (name[1] == '\0' || (name[1] == '.' && name[2] == '\0'))) continue;
    ++counters.entries;
    unsigned char type = entry->d_type;
    if (type == DT_UNKNOWN) {
      // Some file systems do not fill d_type; ask without following links.
      struct stat entry_info {};
      if (fstatat(dirfd(dir), name, &entry_info, AT_SYMLINK_NOFOLLOW) != 0) continue;
      type = S_ISDIR(entry_info.st_mode) ? DT_DIR : S_ISREG(entry_info.st_mode) ? DT_REG : DT_LNK;
    }
    if (type == DT_DIR) {
      std::string sub = join(folder, name);
      if (!valid_utf8(name)) counters.invalid_folder_names.push_back(sub);
      folders.push_back(std::move(sub));
    } else if (type == DT_REG) {
      const std::size_t before = files.size();
      consider(folder, name, options, files, counters);
      if (files.size() > before) {
        struct stat file_info {};
        if (fstatat(dirfd(dir), name, &file_info, AT_SYMLINK_NOFOLLOW) == 0) {
          files.back().device = file_info.st_dev;
          files.back().inode = file_info.st_ino;
        }
      }
    }
    // Links (DT_LNK) are never followed: a link to a folder could loop, a link to a file is reported
    // where it really is.
  }
  closedir(dir);
}

#else

bool is_folder(const std::string& path) {
  const DWORD attributes = GetFileAttributesW(widen(path).c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) != 0;
}

bool exists_but_not_folder(const std::string& path) {
  const DWORD attributes = GetFileAttributesW(widen(path).c_str());
  return attributes != INVALID_FILE_ATTRIBUTES && (attributes & FILE_ATTRIBUTE_DIRECTORY) == 0;
}

namespace {

// A folder's (volume serial, file index): what (device, inode) is on POSIX. The folder itself is opened,
// never what a reparse point in its place would lead to.
bool folder_identity(const std::wstring& folder, std::uint64_t& volume, std::uint64_t& index) {
  HANDLE handle =
      CreateFileW(folder.c_str(), FILE_READ_ATTRIBUTES, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                  OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (handle == INVALID_HANDLE_VALUE) return false;
  BY_HANDLE_FILE_INFORMATION info{};
  const bool known = GetFileInformationByHandle(handle, &info) != 0;
  CloseHandle(handle);
  if (!known) return false;
  volume = info.dwVolumeSerialNumber;
  index = (static_cast<std::uint64_t>(info.nFileIndexHigh) << 32) | info.nFileIndexLow;
  return true;
}

}  // namespace

void list_folder(const std::string& folder, const ScanOptions& options, std::vector<std::string>& folders,
                 std::vector<ScannedFile>& files, WalkCounters& counters, SeenFolders& seen) {
  const std::wstring wide = widen(folder);
  std::uint64_t volume = 0, index = 0;
  // Reparse points are never entered, so only a folder mounted twice could loop; a folder whose identity
  // cannot be read is listed all the same.
  if (folder_identity(wide, volume, index) && !seen.first_visit(volume, index)) return;
  std::wstring pattern = wide;
  if (!pattern.empty() && pattern.back() != L'\\' && pattern.back() != L'/') pattern += L'\\';
  pattern += L'*';
  WIN32_FIND_DATAW entry{};
  HANDLE find = FindFirstFileExW(pattern.c_str(), FindExInfoBasic, &entry, FindExSearchNameMatch, nullptr,
                                 FIND_FIRST_EX_LARGE_FETCH);
  if (find == INVALID_HANDLE_VALUE) {
    const DWORD code = GetLastError();
    if (code == ERROR_FILE_NOT_FOUND) {
      ++counters.folders;  // nothing in it, not even "." and "..": an empty drive root
    } else if (code == ERROR_PATH_NOT_FOUND) {
      ++counters.vanished;
    } else {
      counters.unreadable.push_back(folder);
    }
    return;
  }
  ++counters.folders;
  do {
    const wchar_t* name = entry.cFileName;
    if (name[0] == L'.' && (name[1] == L'\0' || (name[1] == L'.' && name[2] == L'\0'))) continue;
    ++counters.entries;
    // Junctions, symbolic links and mount points of folders could loop; a link to a file is reported
    // where it really is. Reparse points are never followed, as links are not on POSIX.
    if (entry.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) continue;
    const std::string utf8_name = narrow(name);
    if (entry.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) {
      folders.push_back(join(folder, utf8_name.c_str()));
    } else {
      consider(folder, utf8_name.c_str(), options, files, counters);
    }
  } while (FindNextFileW(find, &entry));
  FindClose(find);
}

#endif

}  // namespace dlldoctor::scan
