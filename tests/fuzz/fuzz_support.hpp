#pragma once
// Shared by the libFuzzer harnesses (tests/fuzz/*.cpp): the shipped catalog, loaded once, and a scratch file for
// harnesses whose code under test reads a path.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "src/scenario/catalog.hpp"

namespace shardmeter::fuzz {

inline const cli::Catalog& shipped_catalog() {
  static const cli::Catalog catalog = cli::load_catalog(SHARDMETER_DATA_DIR);
  return catalog;
}

// Writes the input to a per-process file (the harnesses run one input at a time) and returns its path.
inline std::string scratch_file(const std::uint8_t* data, std::size_t size, const char* name) {
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("shardmeter_fuzz_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data),
                                                               static_cast<std::streamsize>(size));
  return path.string();
}

}  // namespace shardmeter::fuzz
