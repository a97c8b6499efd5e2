// Replays fuzzer inputs as an ordinary test: runs LLVMFuzzerTestOneInput on every file under the given
// folders (or on the given files), so the corpus and the malformed fixtures are checked by every build,
// with any compiler, and under the sanitizers when DLLDOCTOR_SANITIZE is on.
//   fuzz_replay PATH...     a missing PATH is an error: a test that reads nothing must not pass
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace {

namespace fs = std::filesystem;

bool replay(const fs::path& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "fuzz_replay: cannot read %s\n", path.string().c_str());
    return false;
  }
  const std::vector<char> bytes((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  // An exact-size heap copy, so that AddressSanitizer flags a read one byte past the input.
  std::vector<std::uint8_t> input(bytes.begin(), bytes.end());
  LLVMFuzzerTestOneInput(input.empty() ? nullptr : input.data(), input.size());
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: fuzz_replay FOLDER_OR_FILE...\n");
    return 2;
  }
  std::size_t count = 0;
  bool ok = true;
  for (int i = 1; i < argc; ++i) {
    const fs::path root(argv[i]);
    std::error_code ec;
    if (fs::is_regular_file(root, ec)) {
      ok = replay(root) && ok;
      ++count;
      continue;
    }
    if (!fs::is_directory(root, ec)) {
      std::fprintf(stderr, "fuzz_replay: %s does not exist\n", argv[i]);
      ok = false;
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(root)) {
      if (!entry.is_regular_file()) continue;
      ok = replay(entry.path()) && ok;
      ++count;
    }
  }
  std::printf("fuzz_replay: %zu inputs\n", count);
  return ok ? 0 : 1;
}
