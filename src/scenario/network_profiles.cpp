#include "src/scenario/network_profiles.hpp"

#include <deque>
#include <filesystem>
#include <map>
#include <mutex>

#include "src/network/nccl_log.hpp"
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

const model::NetworkProfile* network_profile(const YamlField& field) {
  std::filesystem::path path(field.as_string());
  if (path.is_relative()) path = std::filesystem::path(field.source().file).parent_path() / path;
  try {
    return network_profile(path.string());
  } catch (const network::LogError& e) {
    throw field.error(std::string("is not a usable network profile: ") + e.what());
  }
}

}  // namespace shardmeter::cli
