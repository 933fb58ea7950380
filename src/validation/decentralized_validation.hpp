#pragma once
// The decentralized anchors (scenarios/validation/decentralized_runs.csv), scored apart from the step-time MAPE:
// the published bandwidth-for-utilisation tables of the DiLoCo papers against the WAN timeline
// (model/wan_thresholds.hpp), and published compute utilisation / MFU of a real run against its shipped scenario.
// Groups are named after their source (diloco-..., decentralized-...).
#include <string>
#include <vector>

#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

// The bandwidth tables are matched best with 0.9 of the nominal parameter count as payload (docs/model.md §12.3).
inline constexpr double kPublishedPayloadFraction = 0.9;

struct AnchorRow {
  std::string id;
  std::string group;            // diloco-bandwidth-streaming-t4, diloco-bandwidth-charles-t6,
                                // decentralized-utilization, decentralized-mfu
  int line = 0;
  double published = 0;         // Gbit/s, or a utilisation / MFU
  double predicted = 0;
  bool bandwidth = false;       // a bandwidth row (scored by MAPE); otherwise a range check
  double range_low = 0, range_high = 0;   // utilisation rows: the published range
  bool scored = true;           // false for cells at the table's ceiling ("1000+")
};

struct AnchorGroup {
  std::string name;
  int rows = 0;
  double mape = 0;              // bandwidth groups, percent
  int within_one_grid_step = 0; // bandwidth groups
  int inside_range = 0;         // utilisation groups
};

// Reads the CSV (ScenarioError naming file, line and column on a bad cell) and predicts every scored row;
// scenarios named in the `scenario` column are read from `data_dir`.
std::vector<AnchorRow> score_decentralized_anchors(const std::string& csv_path, const std::string& data_dir,
                                                   const Catalog& catalog);
std::vector<AnchorGroup> summarize_anchor_groups(const std::vector<AnchorRow>& rows);
std::string format_anchor_report(const std::vector<AnchorRow>& rows);

}  // namespace shardmeter::cli
