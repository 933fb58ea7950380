#include "src/text/progress_bar.hpp"

#include <algorithm>
#include <string>

#include <fmt/format.h>

namespace shardmeter::cli {

namespace {

constexpr int kBarWidth = 30;
constexpr int kLineWidth = 79;

std::string count_text(std::uint64_t n) {
  const double v = static_cast<double>(n);
  if (v >= 1e9) return fmt::format("{:.2f} G", v / 1e9);
  if (v >= 1e6) return fmt::format("{:.2f} M", v / 1e6);
  if (v >= 1e4) return fmt::format("{:.1f} k", v / 1e3);
  return fmt::format("{}", n);
}

}  // namespace

ProgressBar::ProgressBar(std::FILE* out, double delay_s)
    : out_(out), delay_s_(delay_s), start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() { finish(); }

void ProgressBar::update(std::uint64_t done, std::uint64_t total) {
  const double elapsed_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (elapsed_s < delay_s_ || total == 0) return;
  const double fraction = std::min(1.0, static_cast<double>(done) / static_cast<double>(total));
  const int filled = static_cast<int>(fraction * kBarWidth);
  const std::string line = fmt::format("[{}{}] {:5.1f} %  {} of {} candidates  {:.1f} s", std::string(filled, '#'),
                                       std::string(kBarWidth - filled, '.'), 100.0 * fraction, count_text(done),
                                       count_text(total), elapsed_s);
  std::fprintf(out_, "\r%-*s", kLineWidth, line.c_str());
  std::fflush(out_);
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!drawn_) return;
  std::fprintf(out_, "\r%*s\r", kLineWidth, "");
  std::fflush(out_);
  drawn_ = false;
}

}  // namespace shardmeter::cli
