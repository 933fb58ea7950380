#pragma once
// A measured network: nccl-tests bus bandwidth by operation, message size and node count (docs/model.md §3.6),
// written by `shardmeter calibrate-network` and named by an island's `network_profile`. A fixed-capacity value, so
// the evaluation reads it without allocating; the scenario holds a pointer to one immutable copy (docs/architecture.md,
// "Measured networks").
#include <array>
#include <cstdint>

namespace shardmeter::model {

// The nccl-tests binaries a profile holds, in the order of their table.
enum class NetworkOp : std::uint8_t { all_reduce, all_gather, reduce_scatter, all_to_all, send_recv };
inline constexpr int kNetworkOps = 5;
inline constexpr int kMaxProfileNodeCounts = 12;  // distinct node counts measured per operation
inline constexpr int kMaxProfilePoints = 48;      // message sizes per run (nccl-tests -b 8 -e 16G -f 2 gives 32)

// One run: busbw against message size (nccl-tests' `size` column: the whole array, bytes), sizes ascending.
struct ProfileCurve {
  int nodes = 0;
  int points = 0;
  std::array<double, kMaxProfilePoints> bytes{};
  std::array<double, kMaxProfilePoints> busbw_bytes_per_s{};
  // Set by prepare_profile: log(busbw[i]) (busbw > 0), and log(bytes[i + 1] / bytes[i]) for i + 1 < points.
  std::array<double, kMaxProfilePoints> log_busbw{};
  std::array<double, kMaxProfilePoints> log_bytes_step{};
};

struct ProfileOp {
  int runs = 0;                                       // curves, node counts ascending
  std::array<ProfileCurve, kMaxProfileNodeCounts> curves{};
  // Set by prepare_profile: log(curves[r + 1].nodes / curves[r].nodes) for r + 1 < runs.
  std::array<double, kMaxProfileNodeCounts> log_nodes_step{};
};

struct NetworkProfile {
  int gpus_per_node = 0;                              // GPUs per node of every run
  std::array<ProfileOp, kNetworkOps> ops{};
  bool prepared = false;                              // the logs above are filled (prepare_profile)

  const ProfileOp& op(NetworkOp o) const { return ops[static_cast<std::size_t>(o)]; }
};

// Fills the logs of the measured points that every lookup would otherwise take again (three of the five log/exp of
// an interpolation in size, one of the node count's), once when the profile is made: profile_busbw then gives bit
// for bit the same bandwidth (the same std::log of the same values), for fewer instructions per collective. A
// profile that is not prepared is interpolated from its points alone (docs/model.md §3.6).
void prepare_profile(NetworkProfile& profile) noexcept;

// Measured bus bandwidth of `op` for a message of `bytes` over `nodes` nodes: log-log interpolation in size inside
// each measured run, then log-log in node count between the two runs around `nodes` (docs/model.md §3.6). Beyond the
// largest measured size the bandwidth stays at the last point's; below the smallest, the time stays at the smallest
// point's (the latency floor). Past the measured node counts the two outermost runs' slope is extended and
// `extrapolated` is set. Returns 0 when the profile has no run of `op`.
struct ProfileBandwidth {
  double busbw_bytes_per_s = 0;
  bool extrapolated = false;
};
ProfileBandwidth profile_busbw(const NetworkProfile& profile, NetworkOp op, double bytes, int nodes) noexcept;

// Whether a group over `nodes` nodes stays inside the node counts every measured operation of the profile spans
// (false: some collective of it is extrapolated, docs/model.md §3.6).
bool profile_covers(const NetworkProfile& profile, int nodes) noexcept;

// Bus-bandwidth factor of nccl-tests (doc/PERFORMANCE.md): the per-rank link bytes per array byte, so that
// time = bytes * factor / busbw. all-reduce 2(n-1)/n; all-gather, reduce-scatter and all-to-all (n-1)/n; send/recv 1.
double busbw_factor(NetworkOp op, int ranks) noexcept;

}  // namespace shardmeter::model
