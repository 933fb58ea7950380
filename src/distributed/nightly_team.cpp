#include "src/distributed/nightly_team.hpp"

#include <mpi.h>

#include <cstdint>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <string>

namespace shardmeter::distributed {

namespace {

constexpr int kOutcomesTag = 3;

void put_u64(std::vector<char>& out, std::uint64_t v) {
  const auto* p = reinterpret_cast<const char*>(&v);
  out.insert(out.end(), p, p + sizeof v);
}
void put_string(std::vector<char>& out, const std::string& s) {
  put_u64(out, s.size());
  out.insert(out.end(), s.begin(), s.end());
}

struct Reader {
  const std::vector<char>& in;
  std::size_t at = 0;
  std::uint64_t u64() {
    std::uint64_t v = 0;
    if (at + sizeof v > in.size()) throw std::runtime_error("a rank's nightly outcomes are truncated");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
    return v;
  }
  std::string string() {
    const std::uint64_t n = u64();
    if (at + n > in.size()) throw std::runtime_error("a rank's nightly outcomes are truncated");
    std::string s(in.data() + at, n);
    at += n;
    return s;
  }
};

std::vector<char> pack(const std::vector<cli::SearchOutcome>& outcomes) {
  std::vector<char> out;
  put_u64(out, outcomes.size());
  for (const cli::SearchOutcome& o : outcomes) {
    put_string(out, o.stem);
    put_string(out, o.scenario_name);
    put_u64(out, static_cast<std::uint64_t>(o.status));
    put_string(out, o.message);
    std::uint64_t elapsed_bits = 0;
    std::memcpy(&elapsed_bits, &o.elapsed_s, sizeof elapsed_bits);
    put_u64(out, elapsed_bits);
  }
  return out;
}

std::vector<cli::SearchOutcome> unpack(const std::vector<char>& in) {
  Reader r{in};
  std::vector<cli::SearchOutcome> out(r.u64());
  for (cli::SearchOutcome& o : out) {
    o.stem = r.string();
    o.scenario_name = r.string();
    o.status = static_cast<results::ScenarioStatus>(r.u64());
    o.message = r.string();
    const std::uint64_t elapsed_bits = r.u64();
    std::memcpy(&o.elapsed_s, &elapsed_bits, sizeof elapsed_bits);
  }
  return out;
}

}  // namespace

bool runs_here(const MpiWorld& world, std::size_t i) noexcept {
  return i % static_cast<std::size_t>(world.size()) == static_cast<std::size_t>(world.rank());
}

std::vector<cli::SearchOutcome> gather_outcomes(MpiWorld& world, const std::vector<cli::SearchOutcome>& mine,
                                                std::size_t count) {
  const std::lock_guard lock(world.lock());
  if (world.rank() != 0) {
    const std::vector<char> bytes = pack(mine);
    MPI_Send(bytes.data(), static_cast<int>(bytes.size()), MPI_BYTE, 0, kOutcomesTag, MPI_COMM_WORLD);
    return {};
  }
  // Scenario i is the (i / N)-th outcome of rank i mod N.
  std::vector<std::vector<cli::SearchOutcome>> by_rank(static_cast<std::size_t>(world.size()));
  by_rank[0] = mine;
  for (int source = 1; source < world.size(); ++source) {
    MPI_Status status;
    MPI_Probe(source, kOutcomesTag, MPI_COMM_WORLD, &status);
    int size = 0;
    MPI_Get_count(&status, MPI_BYTE, &size);
    std::vector<char> bytes(static_cast<std::size_t>(size));
    MPI_Recv(bytes.data(), size, MPI_BYTE, source, kOutcomesTag, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    by_rank[static_cast<std::size_t>(source)] = unpack(bytes);
  }
  std::vector<cli::SearchOutcome> all;
  const auto ranks = static_cast<std::size_t>(world.size());
  for (std::size_t i = 0; i < count; ++i) {
    const std::vector<cli::SearchOutcome>& from = by_rank[i % ranks];
    if (i / ranks >= from.size()) throw std::runtime_error("a rank sent fewer nightly outcomes than it ran");
    all.push_back(from[i / ranks]);
  }
  return all;
}

}  // namespace shardmeter::distributed
