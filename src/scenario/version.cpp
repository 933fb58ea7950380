#include "src/scenario/version.hpp"

#include <cstdlib>
#include <system_error>

namespace shardmeter::cli {

const char* version() noexcept { return SHARDMETER_VERSION; }

std::string data_dir_of(const std::filesystem::path& binary_folder, std::string_view installed_relative) {
  if (const char* env = std::getenv("SHARDMETER_DATA_DIR"); env != nullptr && *env != '\0') return env;
  if (!binary_folder.empty()) {
    std::error_code ec;
    const std::filesystem::path installed = (binary_folder / installed_relative).lexically_normal();
    if (std::filesystem::is_regular_file(installed / "gpus.yaml", ec)) return installed.string();
  }
  return SHARDMETER_DATA_DIR;
}

std::string data_dir() {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  return data_dir_of(ec ? std::filesystem::path() : self.parent_path(), SHARDMETER_DATA_FROM_BINDIR);
}

}  // namespace shardmeter::cli
