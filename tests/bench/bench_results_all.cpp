// Rows per second that FrontWriter::append_all streams into /all (pack + shuffle + deflate + write), so the cost of
// `shardmeter search --all` is known. Usage: [LEVEL=1..9] bench_results_all [rows] [out.h5]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "results/files/hdf5_writer.hpp"

using namespace shardmeter;

int main(int argc, char** argv) {
  const long rows = argc > 1 ? std::atol(argv[1]) : 200000;
  const std::filesystem::path out = argc > 2 ? argv[2] : std::filesystem::temp_directory_path() / "bench_all.h5";
  results::PlanPoint p;
  p.scenario.cluster.island_entries = 2;
  for (int i = 0; i < 2; ++i) {
    p.scenario.cluster.islands[static_cast<std::size_t>(i)].gpu.name.assign("h100-sxm");
    p.scenario.cluster.islands[static_cast<std::size_t>(i)].gpus = 256;
  }
  p.estimate.island_entries = 2;
  p.labels = {"h100-sxm", "256", "4", "2", "zero1", "selective", "2"};
  const std::vector<std::string> axes{"cluster.islands.0.gpu", "cluster.islands.0.gpus", "plan.tp", "plan.pp",
                                      "plan.sharding", "plan.recompute", "training.micro_batch"};
  std::vector<results::PlanPoint> batch(1024, p);
  const auto start = std::chrono::steady_clock::now();
  results::FrontWriter writer(out, results::RowLayout(2, axes, 16), results::WriterOptions{.write_all = true, .chunk_rows = 0, .deflate_level = std::getenv("LEVEL") ? std::atoi(std::getenv("LEVEL")) : 4});
  for (long done = 0; done < rows; done += static_cast<long>(batch.size())) {
    for (std::size_t k = 0; k < batch.size(); ++k) {
      batch[k].index = static_cast<std::uint64_t>(done) + k;
      batch[k].estimate.tokens_per_s = 1000.0 + static_cast<double>(k);
      batch[k].estimate.total_cost_usd = 1e6 + 3.0 * static_cast<double>(done + static_cast<long>(k));
    }
    writer.append_all(batch);
  }
  results::RunInfo info;
  info.axes = axes;
  writer.finish(info, {});
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("%llu rows in %.2f s: %.0f rows/s, file %.1f MB (%s)\n",
              static_cast<unsigned long long>(writer.all_rows()), s, static_cast<double>(writer.all_rows()) / s,
              static_cast<double>(std::filesystem::file_size(out)) / 1e6, out.c_str());
  std::filesystem::remove(out);
}
