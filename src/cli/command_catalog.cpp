#include "src/cli/command_catalog.hpp"

#include "src/scenario/price_overrides.hpp"

namespace shardmeter::cli {

Catalog load_command_catalog(const CommandLine& line) {
  Catalog catalog = load_catalog(line.data_dir());
  if (line.has("prices")) apply_price_overrides(catalog, load_price_overrides(line.text("prices"), catalog));
  return catalog;
}

}  // namespace shardmeter::cli
