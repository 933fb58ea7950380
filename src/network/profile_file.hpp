#pragma once
// Network profile files: what `shardmeter calibrate-network` writes from nccl-tests runs, and what an island's
// `network_profile: FILE` reads back into a model::NetworkProfile (docs/network.md).
#include <string>
#include <vector>

#include "model/comm/network_profile.hpp"
#include "src/network/nccl_log.hpp"

namespace shardmeter::network {

// The runs as one profile: every run with the same GPUs per node, at most one run per operation and node count,
// within the profile's capacity (model/comm/network_profile.hpp). A LogError names the run's file otherwise.
model::NetworkProfile make_profile(const std::vector<NcclRun>& runs);

// The profile file's text (YAML), runs ordered by operation and node count.
std::string profile_yaml(const std::vector<NcclRun>& runs);

// Reads a profile file. A missing file, bad YAML or a value out of place is a LogError at its line.
model::NetworkProfile load_profile(const std::string& path);

}  // namespace shardmeter::network
