#pragma once
// Refusing an output path that names an input or another output of the same command (`report g.h5 -o g.h5` would
// replace the front with HTML; `search s.yaml --csv s.yaml` the scenario). Two paths collide when they name the
// same existing file (hard links and symlinks included) or, for files not yet written, the same absolute path.
// Non-regular files (/dev/null, /dev/stdout, FIFOs) never collide: writing one twice replaces nothing.
#include <string>
#include <vector>

namespace shardmeter::cli {

struct PathUse {
  std::string what;  // how the user gave it: "SCENARIO", "FRONT.h5", "-o", "--csv"
  std::string path;
};

// The files a command reads besides the ones it names on its command line: `--prices FILE` ("" = none) and the
// catalogs and model presets of the data directory (DIR/gpus.yaml, DIR/links.yaml, DIR/models/*.yaml).
std::vector<PathUse> catalog_inputs(const std::string& data_dir, const std::string& prices);

// Throws UsageError naming `command`, both uses and the path when an output collides with an input or an earlier
// output. Empty paths are ignored.
void check_path_collisions(const std::string& command, const std::vector<PathUse>& inputs,
                           const std::vector<PathUse>& outputs);

}  // namespace shardmeter::cli
