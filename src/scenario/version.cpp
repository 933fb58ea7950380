#include "src/scenario/version.hpp"

#include <cstdlib>

namespace shardmeter::cli {

const char* version() noexcept { return SHARDMETER_VERSION; }

std::string data_dir() {
  if (const char* env = std::getenv("SHARDMETER_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return SHARDMETER_DATA_DIR;
}

}  // namespace shardmeter::cli
