#pragma once
// `--prices prices.yaml`: GPU prices change more often than hardware, so the nightly job can re-price the catalog
// from one file before its searches:
//   prices:
//     h100-sxm: {price_usd_per_gpu_hour: 2.10, spot_price_usd_per_gpu_hour: 1.20}
//     a100-sxm-80gb: {price_usd_per_gpu_hour: 1.05}
// Each GPU must be in the catalog and give at least one of the two keys; unknown keys, unknown GPUs and bad values
// are ScenarioErrors naming the file, line and column.
#include <optional>
#include <string>
#include <vector>

#include "src/scenario/catalog.hpp"
#include "src/scenario/key_table.hpp"
#include "src/scenario/scenario_error.hpp"
#include "src/scenario/scenario_keys.hpp"

namespace shardmeter::cli {

struct PriceOverride {
  std::string gpu;
  std::optional<double> price_usd_per_gpu_hour;        // on-demand
  std::optional<double> spot_price_usd_per_gpu_hour;
};

// The keys of an entry are the key table's price_file section.
std::vector<PriceOverride> load_price_overrides(const std::string& path, const Catalog& catalog,
                                                const KeyTable& keys = scenario_keys());
// Sets the catalog GPUs' prices. Scenarios parsed afterwards price their islands with them (unless an island sets
// its own price).
void apply_price_overrides(Catalog& catalog, const std::vector<PriceOverride>& prices);

}  // namespace shardmeter::cli
