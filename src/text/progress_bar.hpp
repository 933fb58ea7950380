#pragma once
// A one-line progress bar on a terminal stream, drawn only once the work has run for `delay_s` (short searches
// print nothing). update() may be called from any thread but never concurrently (search::ProgressFn's contract).
#include <chrono>
#include <cstdint>
#include <cstdio>

namespace shardmeter::cli {

class ProgressBar {
public:
  explicit ProgressBar(std::FILE* out, double delay_s = 1.0);
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar();

  void update(std::uint64_t done, std::uint64_t total);
  // Erases the bar if it was drawn (idempotent).
  void finish();

private:
  std::FILE* out_;
  double delay_s_;
  std::chrono::steady_clock::time_point start_;
  bool drawn_ = false;
};

}  // namespace shardmeter::cli
