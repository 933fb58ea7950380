#pragma once
// Recomputing a Pareto front from rows, by two objectives: reports use it to compare a front with a baseline's
// (e.g. the union of both) without re-running a search.
#include <cstddef>
#include <span>
#include <vector>

#include "results/front/objective.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results {

// Indices of the non-dominated rows, ordered by the first objective (best first). A row dominates another when it
// is no worse in both objectives and better in one; of rows with equal values only the first (lowest index) is
// kept. Rows with a NaN objective are skipped. Throws ResultsError when a row lacks a column or holds text there.
std::vector<std::size_t> pareto_front(std::span<const Row> rows, const model::Objective& first,
                                      const model::Objective& second);

// The same on plain values: each pair is (first, second) in its own direction.
std::vector<std::size_t> pareto_front(std::span<const std::pair<double, double>> points, model::Direction first,
                                      model::Direction second);

}  // namespace shardmeter::results
