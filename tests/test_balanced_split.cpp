#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <random>

#include "model/parallel/balanced_split.hpp"

namespace m = shardmeter::model;
using Arr = std::array<double, m::kMaxIslands>;

namespace {
// The continuous balance T with Σ w_e (T − a_e)/c_e = total, as split_batch computes it.
double continuous_target(const Arr& a, const Arr& c, const Arr& w, int entries, double total) {
  double sw = 0, swa = 0;
  for (int e = 0; e < entries; ++e) sw += w[e] / c[e], swa += w[e] * a[e] / c[e];
  return (total + swa) / sw;
}
struct Split {
  Arr n{}, mb{};  // the busiest replica's micro-batches, and the entry's
};
Split split(const Arr& a, const Arr& c, const Arr& w, int entries, double total) {
  Split r;
  m::balanced_microbatches(a, c, w, entries, total, continuous_target(a, c, w, entries, total), r.n, r.mb);
  return r;
}
double step_of(const Arr& a, const Arr& c, const Arr& n, int entries) {
  double t = 0;
  for (int e = 0; e < entries; ++e) t = std::max(t, a[e] + n[e] * c[e]);
  return t;
}
}  // namespace

TEST_CASE("Balanced split: the whole-number split with the smallest step, where largest-remainder rounding is not (docs/model.md §8.5)") {
  // Hand-worked: entry 0 has 4 replicas at 1 s per micro-batch, entry 1 one replica at 0.25 s, no fixed cost, 10
  // micro-batches. Continuous: 4T/1 + T/0.25 = 10, T = 1.25 (shares 5 and 5). Rounding the shares and letting the
  // busiest replica set the pace gives entry 0 ⌈5/4⌉ = 2 micro-batches on one replica: a 2 s step. The floors at T
  // give n = (1, 5), capacity 4 + 5 = 9 < 10; the next completions are 0 + 2·1 = 2 s (entry 0) and 6·0.25 = 1.5 s
  // (entry 1), so entry 1 takes the tenth: n = (1, 6), step max(1, 1.5) = 1.5 s.
  const Arr a{0.0, 0.0}, c{1.0, 0.25}, w{4.0, 1.0};
  const Split r = split(a, c, w, 2, 10.0);
  CHECK((r.n[0] == 1.0 && r.n[1] == 6.0));
  CHECK((r.mb[0] == 4.0 && r.mb[1] == 6.0));  // exactly the capacity: 4 + 6 = 10
  CHECK(step_of(a, c, r.n, 2) == Approx(1.5));
}

TEST_CASE("Balanced split: every replica runs at least one micro-batch, even when that sets the step") {
  // Entry 1 costs 10 s before its first micro-batch: T = 6.5 from T + (T − 10) = 3 wants a negative share there.
  // It still gets 1 (step 11 s); entry 0 is capped at the whole batch of 3, not floor(6.5) = 6.
  const Arr a{0.0, 10.0}, c{1.0, 1.0}, w{1.0, 1.0};
  const Split r = split(a, c, w, 2, 3.0);
  CHECK((r.n[0] == 3.0 && r.n[1] == 1.0));
  // Capacity 3 + 1 = 4 for 3 micro-batches: one each first, then entry 0 (finishing at 3 s, before entry 1's 11 s)
  // takes the other 1 of its 2 spare: m = (2, 1), so its replica runs 2, not 3.
  CHECK((r.mb[0] == 2.0 && r.mb[1] == 1.0));
}

TEST_CASE("Balanced split: equal entries split equally, ties going to the first entry") {
  // 2 entries × 2 replicas, 1 s each, 6 micro-batches: T = 1.5, floors (1, 1) cover 4; both next completions are 2 s,
  // the first entry takes it (capacity 6): n = (2, 1), step 2 s — the smallest possible, since 1 s covers only 4.
  const Arr a{0.0, 0.0}, c{1.0, 1.0}, w{2.0, 2.0};
  const Split r = split(a, c, w, 2, 6.0);
  CHECK((r.n[0] == 2.0 && r.n[1] == 1.0));
  CHECK((r.mb[0] == 4.0 && r.mb[1] == 2.0));
}

TEST_CASE("Balanced split: no whole-number split has a smaller step (brute force, 2 and 3 entries, seeded)") {
  std::mt19937_64 rng(20261202);
  std::uniform_real_distribution<double> fixed(0.0, 3.0), per(0.05, 2.0);
  std::uniform_int_distribution<int> replicas(1, 6), batch(1, 40), count(2, 3);
  for (int trial = 0; trial < 3000; ++trial) {
    const int entries = count(rng);
    Arr a{}, c{}, w{};
    for (int e = 0; e < entries; ++e) a[e] = fixed(rng), c[e] = per(rng), w[e] = replicas(rng);
    const double total = batch(rng);
    const Split r = split(a, c, w, entries, total);
    const Arr& n = r.n;
    const Arr& mb = r.mb;
    double capacity = 0, assigned = 0, replicas = 0;
    for (int e = 0; e < entries; ++e) {
      CHECK(n[e] >= 1.0);
      CHECK(n[e] <= std::ceil(total / w[e]));
      CHECK(mb[e] >= w[e]);                      // one micro-batch per replica at least
      CHECK(std::ceil(mb[e] / w[e]) <= n[e]);    // the busiest replica runs no more than n_e
      capacity += w[e] * n[e], assigned += mb[e], replicas += w[e];
    }
    CHECK(capacity >= total);
    CHECK(assigned == std::max(total, replicas));  // the batch exactly, unless it is smaller than the replicas
    // Every split with 1 ≤ n_e ≤ ⌈total / w_e⌉ that covers the batch.
    double best = 1e300;
    const int m0 = static_cast<int>(std::ceil(total / w[0])), m1 = static_cast<int>(std::ceil(total / w[1]));
    const int m2 = entries == 3 ? static_cast<int>(std::ceil(total / w[2])) : 1;
    for (int i = 1; i <= m0; ++i)
      for (int j = 1; j <= m1; ++j)
        for (int k = 1; k <= m2; ++k) {
          const Arr t{static_cast<double>(i), static_cast<double>(j), static_cast<double>(k)};
          double cap = w[0] * i + w[1] * j + (entries == 3 ? w[2] * k : 0.0);
          if (cap >= total) best = std::min(best, step_of(a, c, t, entries));
        }
    INFO("trial " << trial << ": " << entries << " entries, total " << total);
    CHECK(step_of(a, c, n, entries) == Approx(best).epsilon(1e-12));
  }
}
