#pragma once
// The network profiles islands name (`network_profile: FILE`), loaded once per file and kept for the life of the
// process: an island holds a pointer to one immutable model::NetworkProfile (docs/architecture.md, "Measured
// networks"), valid for every copy of every scenario loaded.
#include <string>

#include "model/comm/network_profile.hpp"
#include "src/scenario/yaml_reader.hpp"

namespace shardmeter::cli {

// The profile in `path` (made absolute and normalised first), loading it on first use. A file that cannot be read
// as a profile throws network::LogError naming it and the line.
const model::NetworkProfile* network_profile(const std::string& path);

// The profile a scenario's `network_profile: FILE` names, its path relative to the scenario file; a file that is not
// a usable profile is the field's error (file, line, key).
const model::NetworkProfile* network_profile(const YamlField& field);

}  // namespace shardmeter::cli
