// lief_dump: the "LIEF" peer of the dlldoctor benchmark.
//
// Parses each FILE with LIEF 0.9 (Debian's liblief-dev) and prints the
// same facts `dlldoctor inspect` reports: machine, imports, exports and the
// fixed version info.  It is deliberately straightforward use of the public
// API -- LIEF::PE::Parser::parse() reads and models the whole file, which is
// exactly the cost the benchmark wants to show next to a lazy reader.
//
// Build (bench/run.sh does this):
//   g++ -O2 -std=c++14 bench/lief_dump.cpp -o lief_dump -lLIEF
#include <LIEF/PE.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>

namespace {

int dump(const std::string& path) {
  std::unique_ptr<LIEF::PE::Binary> bin = LIEF::PE::Parser::parse(path);
  if (!bin) {
    std::fprintf(stderr, "lief_dump: %s: not a PE file\n", path.c_str());
    return 1;
  }
  std::printf("%s\n", path.c_str());
  std::printf("  machine: 0x%04x\n",
              static_cast<unsigned>(bin->header().machine()));

  if (bin->has_imports()) {
    for (const LIEF::PE::Import& imp : bin->imports()) {
      std::printf("  import %s\n", imp.name().c_str());
      for (const LIEF::PE::ImportEntry& e : imp.entries()) {
        if (e.is_ordinal()) {
          std::printf("    #%u\n", static_cast<unsigned>(e.ordinal()));
        } else {
          std::printf("    %s\n", e.name().c_str());
        }
      }
    }
  }

  if (bin->has_exports()) {
    const LIEF::PE::Export& exp = bin->get_export();
    std::printf("  exports of %s\n", exp.name().c_str());
    for (const LIEF::PE::ExportEntry& e : exp.entries()) {
      std::printf("    %5u %s\n", static_cast<unsigned>(e.ordinal()),
                  e.name().c_str());
    }
  }

  if (bin->has_resources()) {
    const LIEF::PE::ResourcesManager rm = bin->resources_manager();
    if (rm.has_version()) {
      const LIEF::PE::ResourceVersion ver = rm.version();
      if (ver.has_fixed_file_info()) {
        const LIEF::PE::ResourceFixedFileInfo& f = ver.fixed_file_info();
        std::printf("  version %u.%u.%u.%u\n", f.file_version_MS() >> 16,
                    f.file_version_MS() & 0xffff, f.file_version_LS() >> 16,
                    f.file_version_LS() & 0xffff);
      }
    }
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s FILE...\n", argv[0]);
    return 2;
  }
  int rc = 0;
  for (int i = 1; i < argc; ++i) {
    // LIEF 0.9 reports malformed input by throwing; keep going like the
    // other peers do with several files.
    try {
      rc |= dump(argv[i]);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "lief_dump: %s: %s\n", argv[i], e.what());
      rc = 1;
    }
  }
  return rc;
}
