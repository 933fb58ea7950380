#pragma once
// Progress as log lines, for output that is not a terminal (batch jobs; rank 0 of an MPI run, whose stderr the
// launcher pipes): one line every `interval_s`, nothing before the first interval has passed. update() may be
// called from any thread but never concurrently (search::ProgressFn's contract).
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <string>

namespace shardmeter::cli {

class ProgressLog {
public:
  // `what`: how the work is described after the counts ("candidates on 16 MPI ranks").
  ProgressLog(std::FILE* out, std::string what, double interval_s = 10.0);
  ProgressLog(const ProgressLog&) = delete;
  ProgressLog& operator=(const ProgressLog&) = delete;

  // Writes "shardmeter: 12.5 % (1.20 M of 9.60 M candidates on 16 MPI ranks) after 30.0 s" once per interval.
  void update(std::uint64_t done, std::uint64_t total);

private:
  std::FILE* out_;
  std::string what_;
  double interval_s_;
  std::chrono::steady_clock::time_point start_;
  double next_s_;
};

}  // namespace shardmeter::cli
