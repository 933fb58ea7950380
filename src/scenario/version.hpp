#pragma once
// The tool's version and where it finds its shipped data (catalogs, presets, calibration table).
#include <filesystem>
#include <string>
#include <string_view>

namespace shardmeter::cli {

const char* version() noexcept;

// The data directory of a binary in `binary_folder`, first match wins:
//   1. $SHARDMETER_DATA_DIR, when set (an explicit choice beats any default);
//   2. <binary_folder>/<installed_relative>, when it holds gpus.yaml: the data `cmake --install` put beside the
//      binary (bin/shardmeter -> ../share/shardmeter), wherever the prefix was moved;
//   3. the scenarios/ folder of the source tree the binary was built from.
// (`--data-dir` comes before all three; src/cli/command_line.hpp.)
std::string data_dir_of(const std::filesystem::path& binary_folder, std::string_view installed_relative);
// data_dir_of for the running executable (/proc/self/exe) and the installed layout's bin/ -> share/shardmeter.
std::string data_dir();

}  // namespace shardmeter::cli
