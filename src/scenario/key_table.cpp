#include "src/scenario/key_table.hpp"

#include <stdexcept>
#include <utility>

namespace shardmeter::cli {

KeyTable::KeyTable(std::vector<SectionKeys> sections) : sections_(std::move(sections)) {}

const SectionKeys& KeyTable::section(Section section) const {
  for (const SectionKeys& s : sections_)
    if (s.section == section) return s;
  throw std::logic_error("key table: a section is missing");
}

const KeySpec& KeyTable::key(Section section, std::string_view name) const {
  for (const KeySpec& k : this->section(section).keys)
    if (k.name == name) return k;
  throw std::logic_error("key table: no key " + std::string(name) + " in section " +
                         std::string(this->section(section).where));
}

KeySpec& KeyTable::key(Section section, std::string_view name) {
  return const_cast<KeySpec&>(std::as_const(*this).key(section, name));
}

std::vector<std::string_view> KeyTable::names(std::initializer_list<Section> sections) const {
  std::vector<std::string_view> out;
  for (Section s : sections)
    for (const KeySpec& k : keys(s)) out.push_back(k.name);
  return out;
}

}  // namespace shardmeter::cli
