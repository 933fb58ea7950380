#include "src/scenario/scenario_schema.hpp"

#include <fmt/format.h>

namespace shardmeter::cli {

namespace {

// A '|' inside a Markdown table cell must be escaped.
std::string escape_pipes(std::string_view text) {
  std::string out;
  for (char c : text) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out;
}

}  // namespace

std::string default_text(const KeyTable& keys, const KeySpec& key) {
  const KeyDefault& d = key.fallback;
  switch (d.kind) {
    case KeyDefault::Kind::value: {
      std::string text(d.shown);
      if (const auto slot = text.find("{}"); slot != std::string::npos) text.replace(slot, 2, d.text);
      return text;
    }
    case KeyDefault::Kind::inherited: {
      std::string_view from = keys.section(d.from).where;
      if (from.ends_with(':')) from.remove_suffix(1);
      return fmt::format("{}'s, else {}", from, default_text(keys, keys.key(d.from, key.name)));
    }
    case KeyDefault::Kind::required:
    case KeyDefault::Kind::derived:
    case KeyDefault::Kind::described:
      break;
  }
  return std::string(d.text);
}

std::string schema_markdown(const KeyTable& keys) {
  std::string out;
  for (const SectionKeys& s : keys.sections()) {
    std::string heading = s.where.empty() ? "" : fmt::format("`{}`", s.where);
    if (!s.note.empty()) heading += (heading.empty() ? "" : " — ") + std::string(s.note);
    out += fmt::format("**{}**\n\n| key | type | unit | default | meaning |\n|---|---|---|---|---|\n", heading);
    for (const KeySpec& k : s.keys)
      out += fmt::format("| `{}` | {} | {} | {} | {} |\n", k.name, escape_pipes(k.type_text()), k.unit,
                         escape_pipes(default_text(keys, k)), escape_pipes(k.doc));
    out += "\n";
  }
  return out;
}

}  // namespace shardmeter::cli
