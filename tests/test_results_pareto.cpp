#include <catch2/catch.hpp>

#include <cmath>

#include "results/errors.hpp"
#include "results/front/pareto.hpp"

using namespace shardmeter::results;
using shardmeter::model::Direction;
using shardmeter::model::Objective;
using shardmeter::model::metric;

namespace {
Row row(double cost, double tps) { return Row{{"total_cost_usd", cost}, {"tokens_per_s", tps}}; }
const Objective kCost{&metric("total_cost_usd"), Direction::minimize};
const Objective kSpeed{&metric("tokens_per_s"), Direction::maximize};
}  // namespace

TEST_CASE("Pareto: cheapest-to-fastest staircase by hand", "[results][pareto]") {
  // (cost, tokens/s): 0 and 2 and 4 are non-dominated; 1 is dominated by 0 (dearer, slower); 3 by 2 (same cost,
  // slower); 5 duplicates 2 and comes later.
  const std::vector<Row> rows{row(10, 100), row(12, 90), row(20, 300), row(20, 250), row(40, 500), row(20, 300)};
  CHECK(pareto_front(rows, kCost, kSpeed) == std::vector<std::size_t>{0, 2, 4});
  // Cost and speed both maximised: only the point with the largest cost and the largest speed survives.
  CHECK(pareto_front(rows, Objective{&metric("total_cost_usd"), Direction::maximize}, kSpeed) == std::vector<std::size_t>{4});
  // Both minimised: the cheapest (10, 100) and the slowest (12, 90) corner points.
  CHECK(pareto_front(rows, kCost, Objective{&metric("tokens_per_s"), Direction::minimize}) == std::vector<std::size_t>{0, 1});
}

TEST_CASE("Pareto: empty input, NaNs skipped, integer columns accepted", "[results][pareto]") {
  CHECK(pareto_front(std::vector<Row>{}, kCost, kSpeed).empty());
  const std::vector<Row> rows{row(std::nan(""), 1e9), row(5, 50), Row{{"total_cost_usd", std::int64_t{4}},
                                                                        {"tokens_per_s", 40.0}}};
  CHECK(pareto_front(rows, kCost, kSpeed) == std::vector<std::size_t>{2, 1});
}

TEST_CASE("Pareto: a missing or text column is a typed error", "[results][pareto]") {
  const std::vector<Row> rows{Row{{"total_cost_usd", 1.0}}};
  CHECK_THROWS_AS(pareto_front(rows, kCost, kSpeed), ResultsError);
  const std::vector<Row> text{Row{{"total_cost_usd", 1.0}, {"tokens_per_s", std::string("fast")}}};
  CHECK_THROWS_AS(pareto_front(text, kCost, kSpeed), ResultsError);
}

TEST_CASE("Pareto matches a brute-force dominance filter", "[results][pareto]") {
  std::vector<std::pair<double, double>> pts;
  for (int i = 0; i < 60; ++i) pts.emplace_back((i * 37) % 23, (i * 53) % 19);  // many ties and duplicates
  const auto front = pareto_front(pts, Direction::minimize, Direction::maximize);
  std::vector<std::size_t> brute;
  for (std::size_t i = 0; i < pts.size(); ++i) {
    bool dominated = false;
    for (std::size_t j = 0; j < pts.size() && !dominated; ++j) {
      const bool no_worse = pts[j].first <= pts[i].first && pts[j].second >= pts[i].second;
      const bool better = pts[j].first < pts[i].first || pts[j].second > pts[i].second;
      const bool earlier_twin = pts[j] == pts[i] && j < i;
      dominated = (no_worse && better) || earlier_twin;
    }
    if (!dominated) brute.push_back(i);
  }
  std::vector<std::size_t> sorted = front;
  std::sort(sorted.begin(), sorted.end());
  CHECK(sorted == brute);
  for (std::size_t k = 1; k < front.size(); ++k) CHECK(pts[front[k - 1]].first < pts[front[k]].first);
}
