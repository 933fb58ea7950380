#pragma once
// Which way each metric of a result (results::metric_columns()) is better, when it is a search objective:
// cost-, time- and memory-like metrics are minimised, throughput- and utilisation-like ones maximised. Declared
// once, in one table (src/planning/metric_sense.cpp); a test keeps it covering every metric column.
#include <optional>
#include <span>
#include <string_view>

#include "search/goal.hpp"

namespace shardmeter::cli {

struct MetricSense {
  std::string_view metric;                // a results::metric_columns() name
  std::optional<search::Sense> sense;     // nullopt: no natural direction (give `sense:` explicitly)
};

std::span<const MetricSense> metric_senses() noexcept;

// The natural direction of a metric; nullopt for metrics without one and for unknown names.
std::optional<search::Sense> natural_sense(std::string_view metric) noexcept;

}  // namespace shardmeter::cli
