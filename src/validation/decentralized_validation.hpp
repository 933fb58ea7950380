#pragma once
// The decentralized anchors (scenarios/validation/decentralized_runs.csv), scored apart from the step-time MAPE:
// the published bandwidth-for-utilisation tables of the DiLoCo papers against the WAN timeline
// (model/job/wan_thresholds.hpp), and published compute utilisation / MFU of a real run against its shipped scenario.
// Groups are named after their source (diloco-..., decentralized-...).
#include <string>
#include <vector>

#include "src/scenario/catalog.hpp"

namespace shardmeter::cli {

// The bandwidth tables are matched best with 0.9 of the nominal parameter count as payload (docs/model.md §12.3).
inline constexpr double kPublishedPayloadFraction = 0.9;
// A utilisation / MFU row is inside when its prediction is within 5 % (relative) of the row's own published value
// (or of its bound, for the _min / _max rows of a published range): assumed, docs/accuracy.md "Decentralized anchors".
inline constexpr double kAnchorTolerance = 0.05;

// What a utilisation / MFU row's published value is: a point (INTELLECT-1's 83 % across continents, 96 % inside the
// US), or one end of a published range (mfu_min, mfu_max).
enum class AnchorKind { point, at_least, at_most };

struct AnchorRow {
  std::string id;
  std::string group;            // diloco-bandwidth-streaming-t4, diloco-bandwidth-charles-t6,
                                // decentralized-utilization, decentralized-mfu
  int line = 0;
  double published = 0;         // Gbit/s, or a utilisation / MFU
  double predicted = 0;
  bool bandwidth = false;       // a bandwidth row (scored by MAPE); otherwise scored against its own value
  AnchorKind kind = AnchorKind::point;    // utilisation / MFU rows
  bool scored = true;           // false for cells at the table's ceiling ("1000+")
  double error_pct() const { return published != 0 ? (predicted - published) / published * 100 : 0; }
  bool inside() const;          // utilisation / MFU rows: within kAnchorTolerance of the published value or bound
};

struct AnchorGroup {
  std::string name;
  int rows = 0;
  double mape = 0;              // bandwidth groups, percent
  int within_one_grid_step = 0; // bandwidth groups
  int inside = 0;               // utilisation groups: rows inside (AnchorRow::inside)
};

// Reads the CSV (ScenarioError naming file, line and column on a bad cell) and predicts every scored row;
// scenarios named in the `scenario` column are read from `data_dir`.
std::vector<AnchorRow> score_decentralized_anchors(const std::string& csv_path, const std::string& data_dir,
                                                   const Catalog& catalog);
std::vector<AnchorGroup> summarize_anchor_groups(const std::vector<AnchorRow>& rows);
std::string format_anchor_report(const std::vector<AnchorRow>& rows);
// The groups and rows of format_anchor_report as JSON text (validate --json's "decentralized" member).
std::string anchor_json_text(const std::vector<AnchorRow>& rows);

}  // namespace shardmeter::cli
