#include "src/text/progress_log.hpp"

#include <algorithm>
#include <utility>

#include <fmt/format.h>

#include "src/text/text_format.hpp"

namespace shardmeter::cli {

ProgressLog::ProgressLog(std::FILE* out, std::string what, double interval_s)
    : out_(out), what_(std::move(what)), interval_s_(interval_s), start_(std::chrono::steady_clock::now()),
      next_s_(interval_s) {}

void ProgressLog::update(std::uint64_t done, std::uint64_t total) {
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed_s < next_s_ || total == 0) return;
  next_s_ = elapsed_s + interval_s_;
  const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  const std::string line = fmt::format("shardmeter: {:.1f} % ({} of {} {}) after {}\n", 100.0 * fraction,
                                       count_si(static_cast<double>(done)), count_si(static_cast<double>(total)),
                                       what_, duration(elapsed_s));
  std::fputs(line.c_str(), out_);
  std::fflush(out_);
}

}  // namespace shardmeter::cli
