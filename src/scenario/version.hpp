#pragma once
// The tool's version and where it finds its shipped data (catalogs, presets, calibration table).
#include <string>

namespace shardmeter::cli {

const char* version() noexcept;

// $SHARDMETER_DATA_DIR if set, else the scenarios/ folder of the source tree this binary was built from.
std::string data_dir();

}  // namespace shardmeter::cli
