#pragma once
// The network profiles islands name (`network_profile: FILE`), loaded once per file and kept for the life of the
// process: an island holds a pointer to one immutable model::NetworkProfile (docs/architecture.md, "Measured
// networks"), valid for every copy of every scenario loaded.
#include <string>

#include "model/comm/network_profile.hpp"

namespace shardmeter::cli {

// The profile in `path` (made absolute and normalised first), loading it on first use. A file that cannot be read
// as a profile throws network::LogError naming it and the line.
const model::NetworkProfile* network_profile(const std::string& path);

}  // namespace shardmeter::cli
