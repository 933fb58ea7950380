#include "model/comm/network_profile.hpp"

#include <cmath>

namespace shardmeter::model {

namespace {

// y at x on the line through (x0, y0) and (x1, y1) in log-log space (docs/model.md §3.6). Equal x: y0.
double log_log(double x, double x0, double y0, double x1, double y1) noexcept {
  if (x1 == x0 || y0 <= 0 || y1 <= 0) return y0;
  const double t = std::log(x / x0) / std::log(x1 / x0);
  return std::exp(std::log(y0) + t * (std::log(y1) - std::log(y0)));
}

// One run's busbw at `bytes`: interpolated inside the measured sizes; the last point's bandwidth beyond them; below
// the first, the first point's time (busbw scales with the size at a fixed time).
double curve_busbw(const ProfileCurve& c, double bytes) noexcept {
  if (c.points <= 0) return 0.0;
  if (bytes <= c.bytes[0]) return c.busbw_bytes_per_s[0] * bytes / c.bytes[0];
  const int last = c.points - 1;
  if (bytes >= c.bytes[static_cast<std::size_t>(last)]) return c.busbw_bytes_per_s[static_cast<std::size_t>(last)];
  int i = 1;
  while (i < last && c.bytes[static_cast<std::size_t>(i)] < bytes) ++i;
  const auto lo = static_cast<std::size_t>(i - 1), hi = static_cast<std::size_t>(i);
  return log_log(bytes, c.bytes[lo], c.busbw_bytes_per_s[lo], c.bytes[hi], c.busbw_bytes_per_s[hi]);
}

}  // namespace

ProfileBandwidth profile_busbw(const NetworkProfile& profile, NetworkOp op, double bytes, int nodes) noexcept {
  const ProfileOp& o = profile.op(op);
  ProfileBandwidth r;
  if (o.runs <= 0 || bytes <= 0) return r;
  const double k = nodes < 1 ? 1.0 : nodes;
  const auto& first = o.curves[0];
  const auto& last = o.curves[static_cast<std::size_t>(o.runs - 1)];
  if (o.runs == 1) {
    r.busbw_bytes_per_s = curve_busbw(first, bytes);
    r.extrapolated = nodes != first.nodes;
    return r;
  }
  // The two runs around k; outside the measured node counts, the two outermost (their slope extended).
  std::size_t hi = 1;
  while (hi + 1 < static_cast<std::size_t>(o.runs) && o.curves[hi].nodes < k) ++hi;
  const ProfileCurve& a = o.curves[hi - 1];
  const ProfileCurve& b = o.curves[hi];
  r.extrapolated = k < first.nodes || k > last.nodes;
  if (k < first.nodes) {
    // Fewer nodes than any run: the smallest run's curve (never extended upward).
    r.busbw_bytes_per_s = curve_busbw(first, bytes);
  } else if (k > last.nodes) {
    // More nodes than any run: the outermost two runs' slope, never above the largest run's bandwidth.
    const double at_last = curve_busbw(b, bytes);
    r.busbw_bytes_per_s = std::fmin(at_last, log_log(k, a.nodes, curve_busbw(a, bytes), b.nodes, at_last));
  } else if (k == a.nodes) {
    r.busbw_bytes_per_s = curve_busbw(a, bytes);
  } else if (k == b.nodes) {
    r.busbw_bytes_per_s = curve_busbw(b, bytes);
  } else {
    r.busbw_bytes_per_s = log_log(k, a.nodes, curve_busbw(a, bytes), b.nodes, curve_busbw(b, bytes));
  }
  return r;
}

bool profile_covers(const NetworkProfile& profile, int nodes) noexcept {
  for (const ProfileOp& o : profile.ops)
    if (o.runs > 0 && (nodes < o.curves[0].nodes || nodes > o.curves[static_cast<std::size_t>(o.runs - 1)].nodes))
      return false;
  return true;
}

double busbw_factor(NetworkOp op, int ranks) noexcept {
  const double n = ranks < 1 ? 1.0 : ranks;
  switch (op) {
    case NetworkOp::all_reduce: return 2.0 * (n - 1.0) / n;
    case NetworkOp::all_gather:
    case NetworkOp::reduce_scatter:
    case NetworkOp::all_to_all: return (n - 1.0) / n;
    case NetworkOp::send_recv: return 1.0;
  }
  return 1.0;
}

}  // namespace shardmeter::model
