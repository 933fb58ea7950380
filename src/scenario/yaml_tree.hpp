#pragma once
// An owned handle on a yaml-cpp node, for headers that must not include yaml-cpp (Catalog, ScenarioDocument): their
// includers see this class only, and code that reads the node includes <yaml-cpp/yaml.h> and calls node(). The
// same opaque-handle idea as results/files/hdf5_writer.hpp's pimpl.
#include <memory>

namespace YAML {
class Node;
}  // namespace YAML

namespace shardmeter::cli {

class YamlTree {
public:
  YamlTree();                                   // a null node
  explicit YamlTree(const YAML::Node& node);    // refers to `node` (yaml-cpp nodes are shared handles)
  YamlTree(const YamlTree& other);              // refers to the same node
  // Rebinds to other's node. (YAML::Node::operator= would write other's value into the node this one refers to.)
  YamlTree& operator=(const YamlTree& other);
  YamlTree(YamlTree&& other) noexcept;              // other may then only be assigned to or destroyed
  YamlTree& operator=(YamlTree&& other) noexcept;
  ~YamlTree();

  YAML::Node& node();
  const YAML::Node& node() const;

private:
  std::unique_ptr<YAML::Node> node_;
};

}  // namespace shardmeter::cli
