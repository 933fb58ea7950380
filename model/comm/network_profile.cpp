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

// log_log with log(x1 / x0), log(y0) and log(y1) given (prepare_profile took them): the same operations on the same
// values, so the same result bit for bit.
double log_log_prepared(double x, double x0, double y0, double x1, double y1, double log_x_step, double log_y0,
                        double log_y1) noexcept {
  if (x1 == x0 || y0 <= 0 || y1 <= 0) return y0;
  const double t = std::log(x / x0) / log_x_step;
  return std::exp(log_y0 + t * (log_y1 - log_y0));
}

// One run's busbw at `bytes`: interpolated inside the measured sizes; the last point's bandwidth beyond them; below
// the first, the first point's time (busbw scales with the size at a fixed time).
double curve_busbw(const ProfileCurve& c, double bytes, bool prepared) noexcept {
  if (c.points <= 0) return 0.0;
  if (bytes <= c.bytes[0]) return c.busbw_bytes_per_s[0] * bytes / c.bytes[0];
  const int last = c.points - 1;
  if (bytes >= c.bytes[static_cast<std::size_t>(last)]) return c.busbw_bytes_per_s[static_cast<std::size_t>(last)];
  int i = 1;
  while (i < last && c.bytes[static_cast<std::size_t>(i)] < bytes) ++i;
  const auto lo = static_cast<std::size_t>(i - 1), hi = static_cast<std::size_t>(i);
  if (prepared)
    return log_log_prepared(bytes, c.bytes[lo], c.busbw_bytes_per_s[lo], c.bytes[hi], c.busbw_bytes_per_s[hi],
                            c.log_bytes_step[lo], c.log_busbw[lo], c.log_busbw[hi]);
  return log_log(bytes, c.bytes[lo], c.busbw_bytes_per_s[lo], c.bytes[hi], c.busbw_bytes_per_s[hi]);
}

// log_log in node count between runs hi - 1 and hi, with log(nodes_hi / nodes_lo) prepared when it is.
double nodes_log_log(const ProfileOp& o, std::size_t hi, double k, double y0, double y1, bool prepared) noexcept {
  const ProfileCurve& a = o.curves[hi - 1];
  const ProfileCurve& b = o.curves[hi];
  if (!prepared || y0 <= 0 || y1 <= 0) return log_log(k, a.nodes, y0, b.nodes, y1);
  return log_log_prepared(k, a.nodes, y0, b.nodes, y1, o.log_nodes_step[hi - 1], std::log(y0), std::log(y1));
}

}  // namespace

void prepare_profile(NetworkProfile& profile) noexcept {
  for (ProfileOp& o : profile.ops) {
    for (int r = 0; r < o.runs; ++r) {
      ProfileCurve& c = o.curves[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < static_cast<std::size_t>(c.points); ++i) {
        c.log_busbw[i] = c.busbw_bytes_per_s[i] > 0 ? std::log(c.busbw_bytes_per_s[i]) : 0.0;
        if (i + 1 < static_cast<std::size_t>(c.points)) c.log_bytes_step[i] = std::log(c.bytes[i + 1] / c.bytes[i]);
      }
      if (r + 1 < o.runs) {
        const double x0 = c.nodes, x1 = o.curves[static_cast<std::size_t>(r + 1)].nodes;
        o.log_nodes_step[static_cast<std::size_t>(r)] = std::log(x1 / x0);
      }
    }
  }
  profile.prepared = true;
}

ProfileBandwidth profile_busbw(const NetworkProfile& profile, NetworkOp op, double bytes, int nodes) noexcept {
  const bool prepared = profile.prepared;
  const ProfileOp& o = profile.op(op);
  ProfileBandwidth r;
  if (o.runs <= 0 || bytes <= 0) return r;
  const double k = nodes < 1 ? 1.0 : nodes;
  const auto& first = o.curves[0];
  const auto& last = o.curves[static_cast<std::size_t>(o.runs - 1)];
  if (o.runs == 1) {
    r.busbw_bytes_per_s = curve_busbw(first, bytes, prepared);
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
    r.busbw_bytes_per_s = curve_busbw(first, bytes, prepared);
  } else if (k > last.nodes) {
    // More nodes than any run: the outermost two runs' slope, never above the largest run's bandwidth.
    const double at_last = curve_busbw(b, bytes, prepared);
    const double at_first = curve_busbw(a, bytes, prepared);
    r.busbw_bytes_per_s = std::fmin(at_last, nodes_log_log(o, hi, k, at_first, at_last, prepared));
  } else if (k == a.nodes) {
    r.busbw_bytes_per_s = curve_busbw(a, bytes, prepared);
  } else if (k == b.nodes) {
    r.busbw_bytes_per_s = curve_busbw(b, bytes, prepared);
  } else {
    const double at_a = curve_busbw(a, bytes, prepared);
    r.busbw_bytes_per_s = nodes_log_log(o, hi, k, at_a, curve_busbw(b, bytes, prepared), prepared);
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
