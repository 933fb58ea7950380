#pragma once
// Hand-built front points for the results/ tests. The numbers are made up and easy to check, not model output.
#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include <unistd.h>

#include "results/front/plan_point.hpp"
#include "results/front/run_info.hpp"

namespace shardmeter::test {

// A fresh directory under the system temp directory, removed with everything in it at scope exit.
class ScratchDir {
public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("shardmeter_results_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  // Names of the files in the directory (sorted).
  std::vector<std::string> files() const;

private:
  std::filesystem::path path_;
};

// Point k (0, 1, 2, ...) of a two-island plan on `gpu` with tensor parallel degree tp; cost and throughput grow
// with k so the points form a front sorted by cost.
results::PlanPoint make_point(int k, const std::string& gpu = "h100-sxm", int tp = 4);
// Three points as a search would hand them over (axes: cluster.islands.0.gpu, plan.tp).
std::vector<results::PlanPoint> three_points();
results::RunInfo make_run_info();

}  // namespace shardmeter::test
