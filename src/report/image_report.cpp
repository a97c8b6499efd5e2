#include "dlldoctor/report/image_report.hpp"

#include <fmt/format.h>

#include "dlldoctor/report/json_text.hpp"

namespace dlldoctor::report {
namespace {

Json version_json(const std::optional<pe::Version>& version) {
  return version ? Json(version->to_string()) : Json(nullptr);
}

Json imports_json(const std::vector<pe::ImportedDll>& dlls, bool delay) {
  Json list = Json::array();
  for (const auto& dll : dlls) {
    Json functions = Json::array();
    for (const auto& f : dll.functions) {
      if (f.name) {
        functions.push_back({{"name", *f.name}, {"hint", f.hint}});
      } else {
        functions.push_back({{"ordinal", f.ordinal.value_or(0)}});
      }
    }
    Json entry = {{"dll", dll.dll}, {"functions", std::move(functions)}};
    if (delay) entry["rva_based"] = dll.rva_based;
    list.push_back(std::move(entry));
  }
  return list;
}

const char* subsystem_name(std::uint16_t subsystem) {
  switch (subsystem) {
    case 1: return "native";
    case 2: return "windows";
    case 3: return "console";
    case 9: return "windows-ce";
    case 10: return "efi-application";
    default: return "other";
  }
}

}  // namespace

Json image_to_json(const std::string& path, const pe::Image& image) {
  Json j;
  j["path"] = path;
  j["format"] = pe::format_name(image.format);
  j["machine"] = pe::machine_name(image.machine);
  j["is_dll"] = image.is_dll;
  j["subsystem"] = subsystem_name(image.subsystem);
  j["linker_version"] = fmt::format("{}.{}", image.linker_major, image.linker_minor);
  Json sections = Json::array();
  for (const auto& section : image.sections) {
    sections.push_back({{"name", section.name},
                        {"virtual_address", section.virtual_address},
                        {"virtual_size", section.virtual_size},
                        {"raw_offset", section.raw_offset},
                        {"raw_size", section.raw_size}});
  }
  j["sections"] = std::move(sections);
  if (image.cut_short) {
    j["cut_short"] = {{"described_size", image.cut_short->described_size}, {"file_size", image.cut_short->file_size}};
  } else {
    j["cut_short"] = nullptr;
  }
  j["imports"] = imports_json(image.imports, false);
  j["delay_imports"] = imports_json(image.delay_imports, true);
  Json bound = Json::array();
  for (const auto& b : image.bound_imports) {
    bound.push_back({{"dll", b.dll}, {"timestamp", b.timestamp}, {"forwarders", b.forwarder_dlls}});
  }
  j["bound_imports"] = std::move(bound);
  if (image.exports) {
    Json items = Json::array();
    for (const auto& item : image.exports->items) {
      items.push_back({{"name", item.name ? Json(*item.name) : Json(nullptr)},
                       {"ordinal", item.ordinal},
                       {"forwarder", item.forwarder ? Json(item.forwarder->text) : Json(nullptr)}});
    }
    j["exports"] = {{"dll_name", image.exports->dll_name},
                    {"ordinal_base", image.exports->ordinal_base},
                    {"items", std::move(items)}};
  } else {
    j["exports"] = nullptr;
  }
  j["named_in_data"] = image.named_in_data;
  j["file_version"] = version_json(image.file_version);
  j["product_version"] = version_json(image.product_version);
  j["strings"] = Json::object();
  for (const auto& [key, value] : image.strings) j["strings"][key] = value;
  j["manifest"] = image.manifest ? Json(*image.manifest) : Json(nullptr);
  j["clr"] = image.has_clr;
  j["signed"] = image.is_signed;
  j["warnings"] = image.warnings;
  return j;
}

Json image_error_to_json(const std::string& path, const std::string& error) {
  return Json{{"path", path}, {"error", error}};
}

void append_image_text(std::string& out, const std::string& path, const pe::Image& image) {
  auto it = std::back_inserter(out);
  fmt::format_to(it, "{}\n  {} {} {}, subsystem {}, linker {}.{}\n", path, pe::format_name(image.format),
                 pe::machine_name(image.machine), image.is_dll ? "DLL" : "EXE", subsystem_name(image.subsystem),
                 image.linker_major, image.linker_minor);
  if (image.file_version || image.product_version) {
    fmt::format_to(it, "  file version {}, product version {}\n",
                   image.file_version ? image.file_version->to_string() : "-",
                   image.product_version ? image.product_version->to_string() : "-");
  }
  out += "  sections:";
  for (const auto& section : image.sections) fmt::format_to(it, " {}", section.name);
  out += '\n';
  if (image.cut_short) {
    fmt::format_to(it, "  cut short: the headers describe {} bytes, the file has {} ({})\n",
                   image.cut_short->described_size, image.cut_short->file_size, image.cut_short->first_cut);
  }
  if (!image.strings.empty()) out += "  version strings:\n";
  for (const auto& [key, value] : image.strings) fmt::format_to(it, "    {}: {}\n", key, value);
  auto list_imports = [&](const char* title, const std::vector<pe::ImportedDll>& dlls) {
    if (dlls.empty()) return;
    fmt::format_to(it, "  {} ({} DLLs):\n", title, dlls.size());
    for (const auto& dll : dlls) {
      fmt::format_to(it, "    {}{} ({} functions)\n", dll.dll, dll.rva_based ? "" : " (VA-based)",
                     dll.functions.size());
      for (const auto& f : dll.functions) {
        if (f.name) {
          fmt::format_to(it, "      {}\n", *f.name);
        } else {
          fmt::format_to(it, "      #{}\n", f.ordinal.value_or(0));
        }
      }
    }
  };
  list_imports("imports", image.imports);
  list_imports("delay imports", image.delay_imports);
  for (const auto& b : image.bound_imports)
    fmt::format_to(it, "  bound to {} (timestamp 0x{:08x})\n", b.dll, b.timestamp);
  if (image.exports) {
    fmt::format_to(it, "  exports of {} (ordinal base {}, {} entries):\n", image.exports->dll_name,
                   image.exports->ordinal_base, image.exports->items.size());
    for (const auto& item : image.exports->items) {
      fmt::format_to(it, "    {:>5} {}", item.ordinal, item.name ? *item.name : "(by ordinal only)");
      if (item.forwarder) fmt::format_to(it, " -> {}", item.forwarder->text);
      out += '\n';
    }
  }
  if (!image.named_in_data.empty()) {
    fmt::format_to(it, "  named in data ({} DLLs, not imported):\n", image.named_in_data.size());
    for (const auto& name : image.named_in_data) fmt::format_to(it, "    {}\n", name);
  }
  if (image.manifest) fmt::format_to(it, "  manifest: {} bytes\n", image.manifest->size());
  if (image.has_clr) out += "  .NET assembly (CLR header present)\n";
  fmt::format_to(it, "  signed: {}\n", image.is_signed ? "yes (Authenticode certificate present)" : "no");
  for (const auto& w : image.warnings) fmt::format_to(it, "  warning: {}\n", w);
}

namespace {

void write_text(Sink& sink, const ImageFiles& files, const WriteStyle&) {
  std::string text;
  for (const std::string& path : files.paths) {
    const Result<pe::Image> image = files.read(path);
    if (!image) continue;  // the reader said why, on stderr
    text.clear();
    append_image_text(text, path, *image);
    sink.put(text);
  }
}

// One file: its object; several: an array of them, in the order given (a file that cannot be read is
// an object with its error).
void write_json(Sink& sink, const ImageFiles& files, const WriteStyle&) {
  JsonStream out(sink);
  if (files.paths.size() != 1) out.open_array();
  for (const std::string& path : files.paths) {
    const Result<pe::Image> image = files.read(path);
    out.put(image ? image_to_json(path, *image) : image_error_to_json(path, image.error().message));
  }
  if (files.paths.size() != 1) out.close();
}

}  // namespace

const Writers<ImageFiles>& image_writers() {
  static const Writers<ImageFiles> writers{{"text", write_text}, {"json", write_json}};
  return writers;
}

}  // namespace dlldoctor::report
