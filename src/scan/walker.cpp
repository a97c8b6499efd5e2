#include "scan/walker.hpp"

#include "dlldoctor/core/fs.hpp"

#ifndef _WIN32
#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#endif

namespace dlldoctor::scan {
namespace {

std::string join(const std::string& folder, const char* name) {
  std::string path = folder;
  if (!path.empty() && path.back() != '/' && path.back() != '\\') path += '/';
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
  switch (read_candidate(file)) {
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
  FsErrorCode ec;
  return fs::is_directory(to_fs_path(path), ec);
}

void list_folder(const std::string& folder, const ScanOptions& options, std::vector<std::string>& folders,
                 std::vector<ScannedFile>& files, WalkCounters& counters, SeenFolders&) {
  FsErrorCode ec;
  fs::directory_iterator it(to_fs_path(folder), ec), end;
  if (ec) {
    counters.unreadable.push_back(folder);
    return;
  }
  ++counters.folders;
  for (; !ec && it != end; it.increment(ec)) {
    ++counters.entries;
    FsErrorCode type_ec;
    // Junctions and symbolic links are reparse points: never followed.
    if (fs::is_symlink(it->symlink_status(type_ec))) continue;
    const std::string name = from_fs_path(it->path().filename());
    if (it->is_directory(type_ec)) {
      folders.push_back(from_fs_path(it->path()));
    } else if (it->is_regular_file(type_ec)) {
      consider(folder, name.c_str(), options, files, counters);
    }
  }
}

#endif

}  // namespace dlldoctor::scan
