#include "src/cli/path_collisions.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "src/cli/cli.hpp"

namespace shardmeter::cli {

namespace fs = std::filesystem;

namespace {

bool is_non_regular(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
}

bool same_file(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (fs::exists(a, ec) && fs::exists(b, ec)) return fs::equivalent(a, b, ec);
  const fs::path ca = fs::weakly_canonical(fs::absolute(a, ec), ec);
  const fs::path cb = fs::weakly_canonical(fs::absolute(b, ec), ec);
  return !ca.empty() && ca == cb;
}

}  // namespace

std::vector<PathUse> catalog_inputs(const std::string& data_dir, const std::string& prices) {
  std::vector<PathUse> inputs;
  if (!prices.empty()) inputs.push_back({"--prices", prices});
  if (data_dir.empty()) return inputs;
  const fs::path dir(data_dir);
  inputs.push_back({"catalog", (dir / "gpus.yaml").string()});
  inputs.push_back({"catalog", (dir / "links.yaml").string()});
  std::error_code ec;
  std::size_t listed = 0;
  for (fs::directory_iterator it(dir / "models", ec), end; !ec && it != end && listed < 4096; it.increment(ec), ++listed)
    if (it->path().extension() == ".yaml") inputs.push_back({"model preset", it->path().string()});
  return inputs;
}

void check_path_collisions(const std::string& command, const std::vector<PathUse>& inputs,
                           const std::vector<PathUse>& outputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const PathUse& out = outputs[o];
    if (out.path.empty() || is_non_regular(out.path)) continue;
    for (const PathUse& in : inputs)
      if (!in.path.empty() && same_file(out.path, in.path))
        throw UsageError("shardmeter " + command + ": " + out.what + " " + out.path + " is the " + in.what + " " +
                         in.path + ", an input; refusing to overwrite it (choose another output path)");
    for (std::size_t p = 0; p < o; ++p)
      if (!outputs[p].path.empty() && same_file(out.path, outputs[p].path))
        throw UsageError("shardmeter " + command + ": " + out.what + " " + out.path + " and " + outputs[p].what +
                         " " + outputs[p].path + " name the same file; give each output its own path");
  }
}

}  // namespace shardmeter::cli
