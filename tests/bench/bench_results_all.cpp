// Rows per second that FrontWriter::append_all streams into /all (decode into a point + pack + deflate + write),
// so the cost of `shardmeter search --all` is known. The rows vary as a search's do: parallel degrees and batch
// sizes from short lists, about a dozen measured values that differ in every row (random doubles, whose low bytes
// no encoder can compress), the rest constant. Usage: [LEVEL=0..9] bench_results_all [rows] [out.h5]
// (LEVEL 0, the default: results/files/row_deflate.hpp; 1-9: zlib at that level).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "results/files/hdf5_writer.hpp"

using namespace shardmeter;

namespace {
double cpu_s() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}
}  // namespace

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 200000;
  const std::filesystem::path out = argc > 2 ? argv[2] : std::filesystem::temp_directory_path() / "bench_all.h5";
  const int level = std::getenv("LEVEL") ? std::atoi(std::getenv("LEVEL")) : 0;
  results::PlanPoint base;
  base.scenario.cluster.island_entries = 2;
  for (int i = 0; i < 2; ++i) {
    base.scenario.cluster.islands[static_cast<std::size_t>(i)].gpu.name.assign("h100-sxm");
    base.scenario.cluster.islands[static_cast<std::size_t>(i)].gpus = 256;
  }
  base.estimate.island_entries = 2;
  const std::vector<std::string> axes{"cluster.islands.0.gpu", "cluster.islands.0.gpus", "plan.tp", "plan.pp",
                                      "plan.sharding", "plan.recompute", "training.micro_batch"};
  const int tps[] = {1, 2, 4, 8}, pps[] = {1, 2, 4, 8, 16}, mbs[] = {1, 2, 4, 8};
  constexpr std::size_t kBatch = 1024;
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> unit(0.5, 1.5);

  const auto start = std::chrono::steady_clock::now();
  const double cpu_start = cpu_s();
  results::FrontWriter writer(out, results::RowLayout(2, axes, 16),
                              results::WriterOptions{.write_all = true, .chunk_rows = 0, .deflate_level = level});
  std::vector<double> values(kBatch * 12);
  for (long done = 0; done < rows; done += static_cast<long>(kBatch)) {
    for (double& v : values) v = unit(rng);
    writer.append_all(kBatch, [&](std::size_t k, results::PlanPoint& p) {
      const auto i = static_cast<std::uint64_t>(done) + k;
      const double* v = values.data() + k * 12;
      p.scenario = base.scenario;
      p.scenario.plan.tp = tps[i % 4];
      p.scenario.plan.pp = pps[(i / 4) % 5];
      p.scenario.training.micro_batch = mbs[(i / 20) % 4];
      p.estimate = base.estimate;
      p.estimate.step_time_s = 10 * v[0];
      p.estimate.tokens_per_s = 4e6 / v[0];
      p.estimate.tokens_per_s_per_gpu = 8e3 / v[0];
      p.estimate.tflops_per_gpu = 400 * v[1];
      p.estimate.mfu = 0.4 * v[1];
      p.estimate.hfu = 0.5 * v[2];
      p.estimate.total_cost_usd = 1e7 * v[3];
      p.estimate.wall_clock_s = 3e6 * v[4];
      p.estimate.memory.activations_bytes = 3e10 * v[5];
      p.estimate.memory.weights_bytes = 1e10 * v[6];
      p.estimate.time.compute_s = 6 * v[7];
      p.estimate.time.dp_comm_s = 2 * v[8];
      p.index = i;
      p.labels = {"h100-sxm", "256", std::to_string(p.scenario.plan.tp), std::to_string(p.scenario.plan.pp), "zero1",
                  "selective", std::to_string(p.scenario.training.micro_batch)};
    });
  }
  results::RunInfo info;
  info.axes = axes;
  writer.finish(info, {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  const double cpu = cpu_s() - cpu_start;
  std::printf("LEVEL=%d: %llu rows in %.2f s (%.2f CPU-s): %.0f rows/s, %.2f CPU-us per row, file %.1f MB (%s)\n", level,
              static_cast<unsigned long long>(writer.all_rows()), s, cpu, static_cast<double>(writer.all_rows()) / s,
              cpu / static_cast<double>(writer.all_rows()) * 1e6,
              static_cast<double>(std::filesystem::file_size(out)) / 1e6, out.c_str());
  std::filesystem::remove(out);
}
