#include "dlldoctor/report/image_report.hpp"

#include <fmt/format.h>

#include "dlldoctor/report/json_text.hpp"
#include "report/text_layout.hpp"

namespace dlldoctor::report {
namespace {

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

void put_imports(JsonStream& out, std::string_view key, const std::vector<pe::ImportedDll>& dlls, bool delay) {
  out.open_array(key);
  for (const auto& dll : dlls) {
    out.open_object();
    out.put_text("dll", dll.dll);
    out.open_array("functions");
    for (const auto& f : dll.functions) {
      out.open_object();
      if (f.name) {
        out.put_text("name", *f.name);
        out.put_number("hint", f.hint);
      } else {
        out.put_number("ordinal", f.ordinal.value_or(0));
      }
      out.close();
    }
    out.close();
    if (delay) out.put_bool("rva_based", dll.rva_based);
    out.close();
  }
  out.close();
}

}  // namespace

void put_version(JsonStream& out, std::string_view key, const std::optional<pe::Version>& version) {
  if (version) {
    out.put_text(key, version->to_string());
  } else {
    out.put_null(key);
  }
}

// Written member by member, in docs/inspect-json.md's order: a DLL with 20,000 exports is never a
// document in memory, so that inspect's JSON costs no more than its text.
void put_image_json(JsonStream& out, const std::string& path, const pe::Image& image) {
  out.open_object();
  out.put_text("path", path);
  out.put_text("format", pe::format_name(image.format));
  out.put_text("machine", pe::machine_name(image.machine));
  out.put_bool("is_dll", image.is_dll);
  out.put_text("subsystem", subsystem_name(image.subsystem));
  out.put_text("linker_version", fmt::format("{}.{}", image.linker_major, image.linker_minor));
  out.open_array("sections");
  for (const auto& section : image.sections) {
    out.open_object();
    out.put_text("name", section.name);
    out.put_number("virtual_address", section.virtual_address);
    out.put_number("virtual_size", section.virtual_size);
    out.put_number("raw_offset", section.raw_offset);
    out.put_number("raw_size", section.raw_size);
    out.close();
  }
  out.close();
  if (image.cut_short) {
    out.open_object("cut_short");
    out.put_number("described_size", image.cut_short->described_size);
    out.put_number("file_size", image.cut_short->file_size);
    out.close();
  } else {
    out.put_null("cut_short");
  }
  put_imports(out, "imports", image.imports, false);
  put_imports(out, "delay_imports", image.delay_imports, true);
  out.open_array("bound_imports");
  for (const auto& b : image.bound_imports) {
    out.open_object();
    out.put_text("dll", b.dll);
    out.put_number("timestamp", b.timestamp);
    out.put_texts("forwarders", b.forwarder_dlls);
    out.close();
  }
  out.close();
  if (image.exports) {
    out.open_object("exports");
    out.put_text("dll_name", image.exports->dll_name);
    out.put_number("ordinal_base", image.exports->ordinal_base);
    out.open_array("items");
    for (const auto& item : image.exports->items) {
      out.open_object();
      out.put_text_or_null("name", item.name);
      out.put_number("ordinal", item.ordinal);
      if (item.forwarder) {
        out.put_text("forwarder", item.forwarder->text);
      } else {
        out.put_null("forwarder");
      }
      out.close();
    }
    out.close();
    out.close();
  } else {
    out.put_null("exports");
  }
  out.put_texts("named_in_data", image.named_in_data);
  put_version(out, "file_version", image.file_version);
  put_version(out, "product_version", image.product_version);
  out.open_object("strings");
  for (const auto& [key, value] : image.strings) out.put_text(key, value);
  out.close();
  out.put_text_or_null("manifest", image.manifest);
  out.put_bool("clr", image.has_clr);
  out.put_bool("signed", image.is_signed);
  out.put_texts("warnings", image.warnings);
  out.close();
}

void put_image_error_json(JsonStream& out, const std::string& path, const std::string& error) {
  out.open_object();
  out.put_text("path", path);
  out.put_text("error", error);
  out.close();
}

std::string image_json_text(const std::string& path, const pe::Image& image) {
  StringSink sink;
  {
    JsonStream out(sink);
    put_image_json(out, path, image);
  }
  return sink.text();
}

void put_image_text(Sink& sink, const std::string& path, const pe::Image& image) {
  // A file's lists can be long (2^20 exports): TextOut hands the text over in pieces, so that it is never
  // held whole beside the image.
  TextOut out(sink);
  out.line(path);
  out.line(fmt::format("  {} {} {}, subsystem {}, linker {}.{}", pe::format_name(image.format),
                       pe::machine_name(image.machine), image.is_dll ? "DLL" : "EXE", subsystem_name(image.subsystem),
                       image.linker_major, image.linker_minor));
  if (image.file_version || image.product_version) {
    out.line(fmt::format("  file version {}, product version {}",
                         image.file_version ? image.file_version->to_string() : "-",
                         image.product_version ? image.product_version->to_string() : "-"));
  }
  std::string sections = "  sections:";
  for (const auto& section : image.sections) sections += " " + section.name;
  out.line(sections);
  if (image.cut_short) {
    out.line(fmt::format("  cut short: the loader expects {} bytes, the file has {} ({})",
                         image.cut_short->described_size, image.cut_short->file_size, image.cut_short->first_cut));
  }
  if (!image.strings.empty()) out.line("  version strings:");
  for (const auto& [key, value] : image.strings) out.line(fmt::format("    {}: {}", key, value));
  auto list_imports = [&](const char* title, const std::vector<pe::ImportedDll>& dlls) {
    if (dlls.empty()) return;
    out.line(fmt::format("  {} ({} DLLs):", title, dlls.size()));
    for (const auto& dll : dlls) {
      out.line(
          fmt::format("    {}{} ({} functions)", dll.dll, dll.rva_based ? "" : " (VA-based)", dll.functions.size()));
      for (const auto& f : dll.functions) {
        out.line(f.name ? "      " + *f.name : fmt::format("      #{}", f.ordinal.value_or(0)));
      }
    }
  };
  list_imports("imports", image.imports);
  list_imports("delay imports", image.delay_imports);
  for (const auto& b : image.bound_imports)
    out.line(fmt::format("  bound to {} (timestamp 0x{:08x})", b.dll, b.timestamp));
  if (image.exports) {
    out.line(fmt::format("  exports of {} (ordinal base {}, {} entries):", image.exports->dll_name,
                         image.exports->ordinal_base, image.exports->items.size()));
    for (const auto& item : image.exports->items) {
      std::string line = fmt::format("    {:>5} {}", item.ordinal, item.name ? *item.name : "(by ordinal only)");
      if (item.forwarder) line += " -> " + item.forwarder->text;
      out.line(line);
    }
  }
  if (!image.named_in_data.empty()) {
    out.line(fmt::format("  named in data ({} DLLs, not imported):", image.named_in_data.size()));
    for (const auto& name : image.named_in_data) out.line("    " + name);
  }
  if (image.manifest) out.line(fmt::format("  manifest: {} bytes", image.manifest->size()));
  if (image.has_clr) out.line("  .NET assembly (CLR header present)");
  out.line(fmt::format("  signed: {}", image.is_signed ? "yes (Authenticode certificate present)" : "no"));
  for (const auto& w : image.warnings) out.line("  warning: " + w);
}

void append_image_text(std::string& out, const std::string& path, const pe::Image& image) {
  StringSink text;
  put_image_text(text, path, image);
  out += text.text();
}

namespace {

void write_text(Sink& sink, const ImageFiles& files, const WriteStyle&) {
  for (const std::string& path : files.paths) {
    const Result<pe::Image> image = files.read(path);
    if (!image) continue;  // the reader said why, on stderr
    put_image_text(sink, path, *image);
  }
}

// One file: its object; several: an array of them, in the order given (a file that cannot be read is
// an object with its error).
void write_json(Sink& sink, const ImageFiles& files, const WriteStyle&) {
  JsonStream out(sink);
  if (files.paths.size() != 1) out.open_array();
  for (const std::string& path : files.paths) {
    const Result<pe::Image> image = files.read(path);
    if (image) {
      put_image_json(out, path, *image);
    } else {
      put_image_error_json(out, path, image.error().message);
    }
  }
  if (files.paths.size() != 1) out.close();
}

}  // namespace

const Writers<ImageFiles>& image_writers() {
  static const Writers<ImageFiles> writers{{"text", write_text}, {"json", write_json}};
  return writers;
}

}  // namespace dlldoctor::report
