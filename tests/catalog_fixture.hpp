#pragma once
// The shipped catalogs (scenarios/), loaded once per test binary.
#include "src/scenario/catalog.hpp"

namespace shardmeter::test {

inline const cli::Catalog& shipped_catalog() {
  static const cli::Catalog c = cli::load_catalog(SHARDMETER_SOURCE_DIR "/scenarios");
  return c;
}

}  // namespace shardmeter::test
