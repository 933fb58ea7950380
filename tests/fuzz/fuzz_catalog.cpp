// libFuzzer harness: the catalog and price files — a `nightly --prices` file and a GPU catalog (gpus.yaml) read
// with the shipped links and presets. The input's first byte chooses which. A ScenarioError naming the file is a
// correct answer; anything else is a bug.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz_support.hpp"
#include "src/scenario/price_overrides.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardmeter;
  namespace fs = std::filesystem;
  if (size == 0) return 0;
  try {
    if (data[0] % 2 == 0) {
      const std::string path = fuzz::scratch_file(data + 1, size - 1, "prices.yaml");
      cli::Catalog catalog = fuzz::shipped_catalog();
      cli::apply_price_overrides(catalog, cli::load_price_overrides(path, catalog));
    } else {
      // A data directory whose gpus.yaml is the input; links.yaml and the presets are the shipped ones (symlinks).
      // The input is written with an ofstream, which retries a write that a signal interrupts: std::filesystem's
      // copy_file does not, and libFuzzer's SIGALRM timer once made it throw (EINTR) out of this harness.
      static const fs::path dir = [] {
        const fs::path d = fuzz::scratch_dir() / "data";
        fs::create_directories(d);
        fs::create_symlink(fs::path(SHARDMETER_DATA_DIR) / "links.yaml", d / "links.yaml");
        fs::create_directory_symlink(fs::path(SHARDMETER_DATA_DIR) / "models", d / "models");
        return d;
      }();
      std::ofstream(dir / "gpus.yaml", std::ios::binary | std::ios::trunc)
          .write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
      (void)cli::load_catalog(dir.string());
    }
  } catch (const cli::ScenarioError&) {
  }
  return 0;
}
