#pragma once
// A minimal XML well-formedness checker for the report tests: one root element, properly nested and closed tags,
// quoted and unique attributes, only the five predefined entities and character references, no stray '<' or '&'.
// Accepts an XML declaration, a DOCTYPE, comments and CDATA. Returns every element (name, decoded attributes) and
// the decoded character data, so tests can count markers and find text.
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace shardmeter::test {

struct XmlElement {
  std::string name;
  std::map<std::string, std::string> attributes;
  bool has_class(std::string_view cls) const;   // `cls` is one of the words of the class attribute
};

struct XmlDocument {
  bool ok = false;
  std::string error;                 // what is wrong and at which byte offset
  std::vector<XmlElement> elements;  // in document order
  std::string text;                  // all character data, decoded, concatenated
  std::size_t count(std::string_view name) const;
  std::size_t count_class(std::string_view cls) const;
};

XmlDocument parse_xml(std::string_view document);

}  // namespace shardmeter::test
