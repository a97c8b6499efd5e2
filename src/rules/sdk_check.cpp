// Seed 5.3: the LNK1181 family. The header, the import library and the DLLs of a cuDNN folder must all be
// there, for the project's machine, and of one version; then the compiler and linker need its paths.
#include "dlldoctor/rules/sdk_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <string_view>

#include "core/fs.hpp"
#include "dlldoctor/core/dll_name.hpp"
#include "dlldoctor/pe/reader.hpp"
#include "dlldoctor/rules/rule_engine.hpp"

namespace dlldoctor::rules {

const char* sdk_layout_name(SdkLayout layout) {
  switch (layout) {
    case SdkLayout::Zip: return "zip";
    case SdkLayout::ZipCudaPrefix: return "zip-cuda-prefix";
    case SdkLayout::Installer: return "installer";
    case SdkLayout::Unknown: break;
  }
  return "unknown";
}

long SdkHeaderVersion::number() const {
  // DOMAIN.md section 3: cuDNN 9 widened the minor field.
  const long scale = major >= 9 ? 10000 : 1000;
  return major * scale + minor * 100L + patch;
}

std::string SdkHeaderVersion::to_string() const { return fmt::format("{}.{}.{}", major, minor, patch); }

bool SdkReport::has_errors() const {
  return std::any_of(findings.begin(), findings.end(), [](const Finding& f) { return f.severity == Severity::Error; });
}

namespace {

constexpr const char* kLibraryName = "cudnn.lib";
constexpr std::size_t kMaxHeaderBytes = 1u << 20;
// Deep enough for a zip unpacked one folder too deep (root\cudnn-...-archive\lib\x64\cudnn.lib).
constexpr int kLibrarySearchDepth = 4;
constexpr std::size_t kLibrarySearchFolders = 256;

using Json = nlohmann::ordered_json;

bool is_windows_path(std::string_view path) {
  const bool drive = path.size() >= 2 && std::isalpha(static_cast<unsigned char>(path[0])) && path[1] == ':';
  return drive || path.find('\\') != std::string_view::npos;
}

bool is_separator(char c) { return c == '/' || c == '\\'; }

// Also drops a trailing "." segment: Boost's lexically_normal() turns "dir/" into "dir/.".
std::string strip_trailing_separators(std::string path) {
  while (path.size() > 1 && path[path.size() - 2] != ':') {
    if (is_separator(path.back())) {
      path.pop_back();
    } else if (path.size() > 2 && path.back() == '.' && is_separator(path[path.size() - 2])) {
      path.resize(path.size() - 2);
    } else {
      break;
    }
  }
  return path;
}

std::optional<int> parse_int(std::string_view text) {
  if (text.empty() || text.size() > 9) return std::nullopt;
  int value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + (c - '0');
  }
  return value;
}

// "cudnn64_9.dll" -> 9: the major version a dispatcher name carries.
std::optional<int> dispatcher_major(const std::string& dll) {
  const std::string key = DllName(dll).key();
  constexpr std::string_view kPrefix = "cudnn64_";
  constexpr std::string_view kSuffix = ".dll";
  if (key.size() <= kPrefix.size() + kSuffix.size() || key.compare(0, kPrefix.size(), kPrefix) != 0 ||
      key.compare(key.size() - kSuffix.size(), kSuffix.size(), kSuffix) != 0) {
    return std::nullopt;
  }
  return parse_int(std::string_view(key).substr(kPrefix.size(), key.size() - kPrefix.size() - kSuffix.size()));
}

// "#define NAME 123" lines; the real headers keep each macro on such a line.
std::map<std::string, int> integer_macros(std::string_view text) {
  std::map<std::string, int> macros;
  auto skip_blanks = [&](std::size_t& i) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
  };
  auto word = [&](std::size_t& i) {
    const std::size_t start = i;
    while (i < text.size() && (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_')) ++i;
    return text.substr(start, i - start);
  };
  std::size_t line = 0;
  while (line < text.size()) {
    std::size_t end = text.find('\n', line);
    if (end == std::string_view::npos) end = text.size();
    std::size_t i = line;
    skip_blanks(i);
    if (i < end && text[i] == '#') {
      ++i;
      skip_blanks(i);
      if (word(i) == "define") {
        skip_blanks(i);
        const std::string_view name = word(i);
        skip_blanks(i);
        const std::string_view value = word(i);
        if (auto number = parse_int(value); number && !name.empty()) macros[std::string(name)] = *number;
      }
    }
    line = end + 1;
  }
  return macros;
}

// Numeric folder names such as "12.4" compare as version numbers, so "12.10" sorts after "12.9".
std::vector<int> version_key(std::string_view name) {
  std::vector<int> key;
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t dot = name.find('.', start);
    if (dot == std::string_view::npos) dot = name.size();
    key.push_back(parse_int(name.substr(start, dot - start)).value_or(-1));
    start = dot + 1;
  }
  return key;
}

bool is_cudnn_dll(std::string_view name) {
  const std::string key = ascii_lower(name);
  return key.size() > 9 && key.compare(0, 5, "cudnn") == 0 && key.compare(key.size() - 4, 4, ".dll") == 0;
}

class SdkChecker {
 public:
  SdkChecker(const std::string& root, env::FileSystem& files, const SdkCheckOptions& options, const RuleData& rules)
      : files_(files),
        options_(options),
        windows_(is_windows_path(root)),
        // Settings are pasted into other programs that run elsewhere: "." would not mean this folder there.
        root_(strip_trailing_separators(from_fs_path(fs::absolute(to_fs_path(root)).lexically_normal()))),
        sink_(rules, CommandPaths("", {root_})) {
    report_.root = root;
    if (options_.windows_path) report_.root = options_.windows_path(root_).value_or(root);
  }

  SdkReport run() {
    find_layout();
    read_header();
    read_library();
    read_dlls();
    check_layout();
    check_header();
    check_library();
    check_versions();
    add_settings();
    RuleOutput output = sink_.take();
    report_.findings = std::move(output.findings);
    report_.problems = std::move(output.problems);
    return std::move(report_);
  }

 private:
  // Paths are kept as the host spells them for lookups and shown as Windows paths: mapped through
  // --sysroot or --map when the caller knows how, else with backslashes for a Windows root.
  std::string shown(std::string path) const {
    if (options_.windows_path) {
      if (auto windows = options_.windows_path(path)) return *windows;
    }
    if (windows_) std::replace(path.begin(), path.end(), '/', '\\');
    return path;
  }

  std::string folder_or_expected(const std::string& folder, std::string_view name) {
    return files_.find_folder(folder, name).value_or(env::join_path(folder, name));
  }

  bool has_cudnn_dlls(const std::string& folder) {
    const auto names = files_.file_names(folder);
    return std::any_of(names.begin(), names.end(), [](const std::string& n) { return is_cudnn_dll(n); });
  }

  void find_layout() {
    std::string base = root_;
    const auto cuda = files_.find_folder(root_, "cuda");
    const bool parts_at_root =
        files_.find_folder(root_, "include") || files_.find_folder(root_, "lib") || files_.find_folder(root_, "bin");
    if (cuda && !parts_at_root &&
        (files_.find_folder(*cuda, "include") || files_.find_folder(*cuda, "lib") ||
         files_.find_folder(*cuda, "bin"))) {
      report_.layout = SdkLayout::ZipCudaPrefix;
      base = *cuda;
    } else if (parts_at_root) {
      report_.layout = SdkLayout::Zip;
    }
    sdk_root_ = base;
    bin_dir_ = folder_or_expected(base, "bin");
    include_dir_ = folder_or_expected(base, "include");
    library_dir_ = folder_or_expected(folder_or_expected(base, "lib"), "x64");

    if (report_.layout == SdkLayout::Zip && !has_cudnn_dlls(bin_dir_)) find_installer_folders();
  }

  // The 9.x installer puts one set per CUDA major under bin\<cuda>\ (DLLs there or in x64\); the newest
  // CUDA folder is the one a fresh project would use.
  void find_installer_folders() {
    std::vector<std::string> cuda_folders;
    for (const std::string& name : files_.folder_names(bin_dir_)) {
      if (!name.empty() && std::isdigit(static_cast<unsigned char>(name[0]))) cuda_folders.push_back(name);
    }
    if (cuda_folders.empty()) return;
    std::sort(cuda_folders.begin(), cuda_folders.end(),
              [](const std::string& a, const std::string& b) { return version_key(a) > version_key(b); });
    const std::string& cuda = cuda_folders.front();
    std::string bin = env::join_path(bin_dir_, cuda);
    if (!has_cudnn_dlls(bin)) {
      auto x64 = files_.find_folder(bin, "x64");
      if (!x64 || !has_cudnn_dlls(*x64)) return;
      bin = *x64;
    }
    report_.layout = SdkLayout::Installer;
    report_.cuda_folder = cuda;
    bin_dir_ = bin;
    if (auto include = files_.find_folder(include_dir_, cuda)) include_dir_ = *include;
    const std::string lib = folder_or_expected(sdk_root_, "lib");
    if (auto per_cuda = files_.find_folder(lib, cuda)) library_dir_ = folder_or_expected(*per_cuda, "x64");
  }

  void read_header() {
    // cudnn_version.h since 8.0; before that the macros are in cudnn.h itself.
    for (const char* name : {"cudnn_version.h", "cudnn.h"}) {
      auto path = files_.find_file(include_dir_, name);
      if (!path) continue;
      report_.header_version = read_cudnn_header(files_, *path, shown(*path));
      if (report_.header_version) return;
    }
  }

  void read_library() {
    auto path = files_.find_file(library_dir_, kLibraryName);
    if (!path) return;
    SdkImportLibrary library;
    library.path = shown(*path);
    files_.note_read(*path);
    auto contents = pe::read_import_library_file(*path);
    if (contents) {
      library.contents = std::move(*contents);
    } else {
      library.error = contents.error().message;
    }
    report_.import_library = std::move(library);
  }

  void read_dlls() {
    pe::ReadParts parts;
    parts.imports = false;
    parts.exports = false;
    for (const std::string& name : files_.file_names(bin_dir_)) {
      if (!is_cudnn_dll(name)) continue;
      SdkDll dll;
      dll.name = name;
      const std::string path = env::join_path(bin_dir_, name);
      dll.path = shown(path);
      files_.note_read(path);
      auto image = pe::read_image_file(path, parts);
      if (image) {
        dll.machine = image->machine;
        dll.file_version = image->file_version;
      } else {
        dll.error = image.error().message;
      }
      report_.dlls.push_back(std::move(dll));
    }
    std::sort(report_.dlls.begin(), report_.dlls.end(),
              [](const SdkDll& a, const SdkDll& b) { return DllName::of_file(a.name) < DllName::of_file(b.name); });
  }

  const SdkDll* dll_in_bin(const std::string& name) const {
    const DllName key(name);
    for (const SdkDll& dll : report_.dlls) {
      if (DllName::of_file(dll.name) == key) return &dll;
    }
    return nullptr;
  }

  // A path inside the unpacked zip: a placeholder the user replaces, as dlldoctor cannot know where that
  // is. The version is the header's unless the caller knows better.
  std::string zip_path(std::string_view inside, std::string version = {}) const {
    if (version.empty() && report_.header_version) version = report_.header_version->to_string();
    const std::string zip = version.empty() ? "<unpacked cuDNN zip for Windows x86_64>"
                                            : fmt::format("<unpacked cuDNN {} zip for Windows x86_64>", version);
    return shown(fmt::format("{}/{}", zip, inside));
  }

  void check_layout() {
    if (report_.layout != SdkLayout::ZipCudaPrefix) return;
    sink_.emit("sdk-old-layout", "default", "", {{"root", shown(root_)}},
               {{"root", shown(root_)}, {"sdk_root", shown(sdk_root_)}});
  }

  void check_header() {
    const char* missing = nullptr;
    if (!files_.find_file(include_dir_, "cudnn.h")) {
      missing = "cudnn.h";
    } else if (!report_.header_version && !files_.find_file(include_dir_, "cudnn_version.h")) {
      // From 8.0 on cudnn.h includes cudnn_version.h: without it the compile fails just the same.
      missing = "cudnn_version.h";
    }
    if (missing == nullptr) return;
    const std::string include = shown(include_dir_);
    sink_.emit(
        "sdk-header-missing", "default", missing,
        {{"include", include}, {"missing", missing}, {"zip_include", zip_path("include/*")}},
        {{"include_dir", include}, {"include_dir_exists", files_.folder_exists(include_dir_)}, {"missing", missing}});
  }

  // Looks for cudnn.lib elsewhere under the root: a zip unpacked one level too deep, or lib\ flattened.
  // Breadth-first and bounded, so naming a big folder (a drive root) by mistake stays quick.
  std::optional<std::string> find_stray_library() {
    std::vector<std::string> level{root_};
    std::size_t budget = kLibrarySearchFolders;
    for (int depth = 0; depth <= kLibrarySearchDepth && !level.empty(); ++depth) {
      std::vector<std::string> next;
      for (const std::string& folder : level) {
        if (budget-- == 0) return std::nullopt;
        if (auto path = files_.find_file(folder, kLibraryName)) return path;
        for (const std::string& name : files_.folder_names(folder)) next.push_back(env::join_path(folder, name));
      }
      level = std::move(next);
    }
    return std::nullopt;
  }

  void check_library() {
    const std::string library = shown(env::join_path(library_dir_, kLibraryName));
    if (!report_.import_library) {
      Json evidence = {{"library", library}, {"library_dir_exists", files_.folder_exists(library_dir_)}};
      const auto stray = find_stray_library();
      if (stray) evidence["found_elsewhere"] = shown(*stray);
      sink_.emit("sdk-import-library-missing", "default", kLibraryName,
                 {{"library", library},
                  {"library_dir", shown(library_dir_)},
                  {"source", stray ? shown(*stray) : zip_path("lib/x64/cudnn.lib")}},
                 std::move(evidence));
      return;
    }
    const SdkImportLibrary& found = *report_.import_library;
    if (!found.contents || found.contents->imports.empty()) {
      Json evidence = {{"library", found.path}};
      if (!found.contents) evidence["error"] = found.error;
      sink_.emit("sdk-import-library-unreadable", "default", kLibraryName,
                 {{"library", found.path},
                  {"problem", found.contents ? "no import members" : found.error},
                  {"zip_library", zip_path("lib/x64/cudnn.lib")}},
                 std::move(evidence));
      return;
    }
    check_library_machine(found);
    check_library_dlls(found);
  }

  void check_library_machine(const SdkImportLibrary& found) {
    const auto& machines = found.contents->machines;
    const std::uint16_t target = options_.target_machine;
    if (machines.size() == 1 && machines.front() == target) return;
    std::vector<std::string> names;
    for (std::uint16_t m : machines) names.push_back(pe::machine_name(m));
    const std::string machine = fmt::format("{}", fmt::join(names, "+"));
    const std::string target_name = pe::machine_name(target);
    // Seed 5.3: cuDNN ships no 32-bit import library at all; for such a project, the project has to change.
    sink_.emit("sdk-import-library-wrong-machine", target == pe::machine::kAmd64 ? "x64_project" : "other_project",
               kLibraryName,
               {{"library", found.path},
                {"machine", machine},
                {"target", target_name},
                {"zip_library", zip_path("lib/x64/cudnn.lib")}},
               {{"library", found.path}, {"machine", machine}, {"target_machine", target_name}});
  }

  void check_library_dlls(const SdkImportLibrary& found) {
    std::vector<std::string> bin_names;
    for (const SdkDll& dll : report_.dlls) bin_names.push_back(dll.name);
    for (const std::string& dll : found.contents->dlls) {
      if (dll_in_bin(dll)) continue;
      const std::string bin = shown(bin_dir_);
      sink_.emit("sdk-import-library-points-elsewhere", "default", dll,
                 {{"library", found.path},
                  {"dll", dll},
                  {"bin", bin},
                  {"bin_has", bin_names.empty() ? "" : fmt::format(" (it has {})", fmt::join(bin_names, ", "))},
                  {"zip_bin", zip_path("bin/*")}},
                 {{"library", found.path}, {"dll", dll}, {"bin_dir", bin}, {"bin_dlls", bin_names}});
    }
  }

  // The header, the DLLs and the DLL the import library names must be one cuDNN version. The header is
  // the reference when it has one (it is what the program is compiled against), else the dispatcher DLL.
  void check_versions() {
    std::string library_dll;
    if (report_.import_library && report_.import_library->contents) {
      for (const std::string& dll : report_.import_library->contents->dlls) {
        if (dispatcher_major(dll)) library_dll = dll;
      }
    }
    std::array<int, 3> reference{};
    std::string reference_from;
    if (report_.header_version) {
      reference = {report_.header_version->major, report_.header_version->minor, report_.header_version->patch};
      reference_from = report_.header_version->header;
    } else {
      const SdkDll* dispatcher = nullptr;
      for (const SdkDll& dll : report_.dlls) {
        if (dispatcher_major(dll.name) && dll.file_version &&
            (!dispatcher || DllName::of_file(dll.name) == DllName(library_dll))) {
          dispatcher = &dll;
        }
      }
      if (!dispatcher) return;
      const auto& parts = dispatcher->file_version->parts;
      reference = {parts[0], parts[1], parts[2]};
      reference_from = dispatcher->path;
    }
    const std::string expected = fmt::format("{}.{}.{}", reference[0], reference[1], reference[2]);

    Json mismatched = Json::array();
    std::vector<std::string> described;
    std::string first_mismatch = kLibraryName;
    for (const SdkDll& dll : report_.dlls) {
      if (!dll.file_version || dll.path == reference_from) continue;
      const auto& parts = dll.file_version->parts;
      if (parts[0] == reference[0] && parts[1] == reference[1] && parts[2] == reference[2]) continue;
      if (mismatched.empty()) first_mismatch = dll.name;
      mismatched.push_back({{"path", dll.path}, {"file_version", dll.file_version->to_string()}});
      described.push_back(fmt::format("{} is {}", dll.name, dll.file_version->to_string()));
    }
    const auto library_major = library_dll.empty() ? std::nullopt : dispatcher_major(library_dll);
    if (library_major && *library_major != reference[0]) {
      described.push_back(fmt::format("cudnn.lib links to {}", library_dll));
    }
    if (described.empty()) return;

    Json evidence = {{"expected", expected}, {"expected_from", reference_from}};
    if (report_.header_version) evidence["header_version_number"] = report_.header_version->number();
    evidence["mismatched_dlls"] = std::move(mismatched);
    if (!library_dll.empty()) evidence["library_dll"] = library_dll;
    sink_.emit("sdk-version-mismatch", "default", first_mismatch,
               {{"reference", reference_from},
                {"expected", expected},
                {"mismatches", fmt::format("{}", fmt::join(described, ", "))},
                {"zip_bin", zip_path("bin/*", expected)},
                {"bin", shown(bin_dir_)}},
               std::move(evidence));
  }

  void add_settings() {
    const std::string sdk_root = shown(sdk_root_);
    const std::string include = shown(include_dir_);
    const std::string library_dir = shown(library_dir_);
    const std::string library = shown(env::join_path(library_dir_, kLibraryName));
    const std::string platform = pe::machine_name(options_.target_machine);
    sink_.emit("sdk-settings", "default", "",
               {{"root", shown(root_)},
                {"sdk_root", sdk_root},
                {"include", include},
                {"library_dir", library_dir},
                {"library", library},
                {"platform", platform}},
               {{"cudnn_root", sdk_root},
                {"include_dir", include},
                {"library_dir", library_dir},
                {"library", library},
                {"additional_dependencies", kLibraryName},
                {"platform", platform}});
    report_.sdk_root = sdk_root;
    report_.include_dir = include;
    report_.library_dir = library_dir;
    report_.library = library;
    report_.bin_dir = shown(bin_dir_);
  }

  env::FileSystem& files_;
  const SdkCheckOptions& options_;
  const bool windows_;
  std::string root_;
  FindingSink sink_;
  SdkReport report_;
  std::string sdk_root_;
  std::string include_dir_;
  std::string library_dir_;
  std::string bin_dir_;
};

}  // namespace

std::optional<SdkHeaderVersion> read_cudnn_header(env::FileSystem& files, const std::string& path,
                                                  const std::string& shown) {
  auto text = files.read_small_file(path, kMaxHeaderBytes);
  if (!text) return std::nullopt;
  const auto macros = integer_macros(*text);
  auto major = macros.find("CUDNN_MAJOR");
  auto minor = macros.find("CUDNN_MINOR");
  auto patch = macros.find("CUDNN_PATCHLEVEL");
  if (major == macros.end() || minor == macros.end() || patch == macros.end()) return std::nullopt;
  return SdkHeaderVersion{major->second, minor->second, patch->second, shown};
}

Result<SdkReport> check_cudnn_sdk(const std::string& root, env::FileSystem& files, const RuleData& rules,
                                  const SdkCheckOptions& options) {
  if (!files.folder_exists(strip_trailing_separators(root))) return Error{fmt::format("{}: no such folder", root)};
  return SdkChecker(root, files, options, rules).run();
}

}  // namespace dlldoctor::rules
