#include "src/scenario/yaml_tree.hpp"

#include <yaml-cpp/yaml.h>

namespace shardmeter::cli {

YamlTree::YamlTree() : node_(std::make_unique<YAML::Node>()) {}
YamlTree::YamlTree(const YAML::Node& node) : node_(std::make_unique<YAML::Node>(node)) {}
YamlTree::YamlTree(const YamlTree& other) : node_(std::make_unique<YAML::Node>(*other.node_)) {}
YamlTree& YamlTree::operator=(const YamlTree& other) {
  if (this != &other) node_ = std::make_unique<YAML::Node>(*other.node_);
  return *this;
}
YamlTree::YamlTree(YamlTree&& other) noexcept : node_(std::move(other.node_)) {}
YamlTree& YamlTree::operator=(YamlTree&& other) noexcept {
  node_.swap(other.node_);
  return *this;
}
YamlTree::~YamlTree() = default;

YAML::Node& YamlTree::node() { return *node_; }
const YAML::Node& YamlTree::node() const { return *node_; }

}  // namespace shardmeter::cli
