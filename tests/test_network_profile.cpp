#include <catch2/catch.hpp>

#include "model/comm/nccl_algorithm.hpp"
#include "model/comm/network_profile.hpp"

using namespace shardmeter::model;

namespace {

// All-gather measured over 1 and 4 nodes (8 GPUs each), two sizes each.
NetworkProfile two_run_profile() {
  NetworkProfile p;
  p.gpus_per_node = 8;
  ProfileOp& ag = p.ops[static_cast<std::size_t>(NetworkOp::all_gather)];
  ag.runs = 2;
  ag.curves[0].nodes = 1;
  ag.curves[0].points = 2;
  ag.curves[0].bytes = {1e6, 1e8};
  ag.curves[0].busbw_bytes_per_s = {10e9, 100e9};
  ag.curves[1].nodes = 4;
  ag.curves[1].points = 2;
  ag.curves[1].bytes = {1e6, 1e8};
  ag.curves[1].busbw_bytes_per_s = {5e9, 25e9};
  return p;
}

}  // namespace

TEST_CASE("A network profile interpolates log-log in size, then in node count (docs/model.md §3.6)") {
  const NetworkProfile p = two_run_profile();
  // 1e7 is the log midpoint of 1e6 and 1e8: sqrt(10e9 x 100e9) = 31.6228e9.
  CHECK(profile_busbw(p, NetworkOp::all_gather, 1e7, 1).busbw_bytes_per_s == Approx(31.6227766e9));
  // On 4 nodes: sqrt(5e9 x 25e9) = 11.1803e9.
  CHECK(profile_busbw(p, NetworkOp::all_gather, 1e7, 4).busbw_bytes_per_s == Approx(11.1803399e9));
  // 2 nodes is the log midpoint of 1 and 4: sqrt(31.6228e9 x 11.1803e9) = sqrt(353.553e18) = 18.8030e9.
  const ProfileBandwidth two = profile_busbw(p, NetworkOp::all_gather, 1e7, 2);
  CHECK(two.busbw_bytes_per_s == Approx(18.8030e9).epsilon(1e-4));
  CHECK_FALSE(two.extrapolated);
  // Measured points come back exactly.
  CHECK(profile_busbw(p, NetworkOp::all_gather, 1e8, 4).busbw_bytes_per_s == Approx(25e9));
  // Past the largest size the bandwidth stays; below the smallest the time stays: 10e9 x 1e5 / 1e6 = 1e9.
  CHECK(profile_busbw(p, NetworkOp::all_gather, 1e9, 1).busbw_bytes_per_s == Approx(100e9));
  CHECK(profile_busbw(p, NetworkOp::all_gather, 1e5, 1).busbw_bytes_per_s == Approx(1e9));
  // 16 nodes extends the 1 -> 4 slope at 1e8 (100 -> 25 GB/s, /4 per x4 nodes): 25e9 / 4 = 6.25e9, flagged.
  const ProfileBandwidth sixteen = profile_busbw(p, NetworkOp::all_gather, 1e8, 16);
  CHECK(sixteen.busbw_bytes_per_s == Approx(6.25e9));
  CHECK(sixteen.extrapolated);
  // An operation the profile lacks gives nothing (the analytical model takes over).
  CHECK(profile_busbw(p, NetworkOp::all_reduce, 1e8, 1).busbw_bytes_per_s == 0.0);
}

TEST_CASE("nccl-tests bus-bandwidth factors (doc/PERFORMANCE.md)") {
  CHECK(busbw_factor(NetworkOp::all_reduce, 8) == Approx(1.75));
  CHECK(busbw_factor(NetworkOp::all_gather, 16) == Approx(15.0 / 16));
  CHECK(busbw_factor(NetworkOp::send_recv, 16) == 1.0);
}

TEST_CASE("An island's profile replaces the analytical collective with the measured curve") {
  const NetworkProfile p = two_run_profile();
  GroupLinks links{300e9, 3e-6, 50e9, 5e-6};
  const GroupPlacement two_nodes{8, 2};
  const CollectiveCost model_cost = nccl_collective(NetworkOp::all_gather, 1e8, two_nodes, links);
  links.profile = &p;
  // 2 nodes at 1e8: sqrt(100e9 x 25e9) = 50e9; time = 1e8 x (16-1)/16 / 50e9 = 1.875 ms.
  const CollectiveCost measured = nccl_collective(NetworkOp::all_gather, 1e8, two_nodes, links);
  CHECK(measured.time_s == Approx(1.875e-3));
  CHECK(measured.algorithm == CollectiveAlgorithm::measured);
  CHECK_FALSE(measured.extrapolated);
  CHECK(measured.time_s != Approx(model_cost.time_s));
  // The all-reduce is not in the profile: the analytical model still prices it.
  CHECK(nccl_collective(NetworkOp::all_reduce, 1e8, two_nodes, links).algorithm != CollectiveAlgorithm::measured);
  // 16 nodes: past the measured counts, flagged.
  CHECK(nccl_collective(NetworkOp::all_gather, 1e8, GroupPlacement{8, 16}, links).extrapolated);
}

// prepare_profile takes the logs of the measured points once (model/comm/network_profile.hpp); a lookup must then
// give the very bandwidth an unprepared profile gives, bit for bit, inside, between, below and past the runs.
TEST_CASE("A prepared profile interpolates exactly as an unprepared one") {
  NetworkProfile plain = two_run_profile();
  ProfileOp& ag = plain.ops[static_cast<std::size_t>(NetworkOp::all_gather)];
  ag.runs = 3;
  ag.curves[2].nodes = 16;
  ag.curves[2].points = 4;
  ag.curves[2].bytes = {1e5, 1e6, 3e7, 1e8};
  ag.curves[2].busbw_bytes_per_s = {0.5e9, 2e9, 7e9, 9e9};
  NetworkProfile prepared = plain;
  prepare_profile(prepared);
  CHECK(prepared.prepared);
  CHECK_FALSE(plain.prepared);
  for (double bytes : {1e3, 1e5, 3e5, 1e6, 2.5e6, 1e7, 3e7, 5e7, 1e8, 1e9})
    for (int nodes : {1, 2, 3, 4, 7, 16, 24, 64}) {
      const ProfileBandwidth a = profile_busbw(plain, NetworkOp::all_gather, bytes, nodes);
      const ProfileBandwidth b = profile_busbw(prepared, NetworkOp::all_gather, bytes, nodes);
      INFO("bytes " << bytes << " nodes " << nodes);
      CHECK(a.busbw_bytes_per_s == b.busbw_bytes_per_s);
      CHECK(a.extrapolated == b.extrapolated);
    }
}
