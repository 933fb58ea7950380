#pragma once
// `shardmeter nightly` under an MPI launcher (docs/scale.md): the scenarios are dealt round-robin over the ranks
// (scenario i runs on rank i mod N, each search with the rank's threads, writing its own <stem>.h5 into the day's
// directory, which must be on a file system every rank sees); rank 0 gathers the outcomes and alone writes the
// reports and the index.
#include <cstddef>
#include <vector>

#include "src/distributed/mpi_world.hpp"
#include "src/nightly/nightly.hpp"

namespace shardmeter::distributed {

// Whether scenario `i` (in discovery order) runs on this rank.
bool runs_here(const MpiWorld& world, std::size_t i) noexcept;

// Every rank passes the outcomes of the scenarios it ran, in discovery order. Rank 0 gets back every scenario's
// outcome in discovery order (`count` of them); the other ranks an empty vector.
std::vector<cli::SearchOutcome> gather_outcomes(MpiWorld& world, const std::vector<cli::SearchOutcome>& mine,
                                                std::size_t count);

}  // namespace shardmeter::distributed
