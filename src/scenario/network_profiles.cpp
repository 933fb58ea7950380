#include "src/scenario/network_profiles.hpp"

#include <deque>
#include <filesystem>
#include <map>
#include <mutex>

#include "src/network/profile_file.hpp"

namespace shardmeter::cli {

const model::NetworkProfile* network_profile(const std::string& path) {
  // Never freed: scenarios copied anywhere in the process keep pointing here.
  static std::mutex mutex;
  static std::deque<model::NetworkProfile> profiles;
  static std::map<std::string, const model::NetworkProfile*> by_path;
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::weakly_canonical(path, ec);
  const std::string key = ec ? path : absolute.string();
  const std::lock_guard<std::mutex> lock(mutex);
  if (const auto it = by_path.find(key); it != by_path.end()) return it->second;
  profiles.push_back(network::load_profile(path));
  return by_path[key] = &profiles.back();
}

}  // namespace shardmeter::cli
