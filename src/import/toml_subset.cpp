#include "src/import/toml_subset.hpp"

#include <cctype>
#include <set>

namespace shardmeter::cli {

namespace {

bool bare_key_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

class LineReader {
public:
  LineReader(const std::string& line, const std::string& file, int number) : s_(line), file_(file), number_(number) {}
  [[noreturn]] void fail(const std::string& problem) const {
    throw ScenarioError(SourceLocation{file_, number_, static_cast<int>(i_) + 1}, "", s_, problem);
  }
  void blanks() {
    while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t')) ++i_;
  }
  bool done() {
    blanks();
    return i_ >= s_.size() || s_[i_] == '#';
  }
  char peek() const { return i_ < s_.size() ? s_[i_] : '\0'; }
  std::size_t pos() const { return i_; }
  std::string bare() {
    const std::size_t start = i_;
    while (i_ < s_.size() && bare_key_char(s_[i_])) ++i_;
    if (i_ == start) fail("is TOML the import does not read: expected a bare key");
    return s_.substr(start, i_ - start);
  }
  void expect(char c, const char* what) {
    blanks();
    if (peek() != c) fail(std::string("is TOML the import does not read: expected ") + what);
    ++i_;
  }
  TomlValue value() {
    blanks();
    TomlValue v;
    const char c = peek();
    if (c == '"') {
      if (s_.compare(i_, 3, "\"\"\"") == 0) fail("is a multi-line string, which the import does not read");
      ++i_;
      while (i_ < s_.size() && s_[i_] != '"') {
        if (s_[i_] == '\\') {
          ++i_;
          const char e = peek();
          if (e == '"' || e == '\\') v.text += e;
          else if (e == 'n') v.text += '\n';
          else if (e == 't') v.text += '\t';
          else fail("has a string escape the import does not read");
        } else {
          v.text += s_[i_];
        }
        ++i_;
      }
      if (i_ >= s_.size()) fail("has a string that is not closed on its line");
      ++i_;
      return v;
    }
    if (c == '\'') {
      if (s_.compare(i_, 3, "'''") == 0) fail("is a multi-line string, which the import does not read");
      const std::size_t end = s_.find('\'', i_ + 1);
      if (end == std::string::npos) fail("has a string that is not closed on its line");
      v.text = s_.substr(i_ + 1, end - i_ - 1);
      i_ = end + 1;
      return v;
    }
    if (c == '[') {
      v.kind = TomlValue::Kind::array;
      ++i_;
      blanks();
      while (peek() != ']') {
        if (i_ >= s_.size()) fail("is an array that does not close on its line (multi-line arrays are not read)");
        v.items.push_back(value());
        blanks();
        if (peek() == ',') {
          ++i_;
          blanks();
        } else if (peek() != ']') {
          fail("is TOML the import does not read: expected , or ] in the array");
        }
      }
      ++i_;
      return v;
    }
    if (c == '{') fail("is an inline table, which the import does not read");
    const std::size_t start = i_;
    while (i_ < s_.size() && s_[i_] != ' ' && s_[i_] != '\t' && s_[i_] != ',' && s_[i_] != ']' && s_[i_] != '#') ++i_;
    v.text = s_.substr(start, i_ - start);
    if (v.text == "true" || v.text == "false") {
      v.kind = TomlValue::Kind::boolean;
      return v;
    }
    std::string digits;
    for (char d : v.text)
      if (d != '_') digits += d;
    try {
      std::size_t used = 0;
      if (digits.find_first_of(".eE") == std::string::npos) {
        (void)std::stoll(digits, &used);
        v.kind = TomlValue::Kind::integer;
      } else {
        (void)std::stod(digits, &used);
        v.kind = TomlValue::Kind::number;
      }
      if (used != digits.size() || digits.empty()) throw std::invalid_argument("");
      v.text = digits;
    } catch (const std::exception&) {
      i_ = start;
      fail("is a value the import does not read (strings, numbers, booleans and one-line arrays)");
    }
    return v;
  }

private:
  const std::string& s_;
  const std::string& file_;
  int number_;
  std::size_t i_ = 0;
};

}  // namespace

std::map<std::string, TomlValue> read_toml_subset(const std::string& text, const std::string& file) {
  std::map<std::string, TomlValue> out;
  std::set<std::string> tables;
  std::string table;
  int number = 0;
  std::size_t start = 0;
  while (start <= text.size()) {
    const std::size_t end = text.find('\n', start);
    std::string line = text.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty() && line.back() == '\r') line.pop_back();
    ++number;
    LineReader r(line, file, number);
    if (!r.done()) {
      if (r.peek() == '[') {
        if (line.find("[[") != std::string::npos) r.fail("is an array of tables, which the import does not read");
        r.expect('[', "[");
        r.blanks();
        table = r.bare();
        while (r.peek() == '.') {
          r.expect('.', ".");
          table.push_back('.');
          table.append(r.bare());
        }
        r.expect(']', "]");
        if (!r.done()) r.fail("has text after the table header");
        if (!tables.insert(table).second)
          throw ScenarioError(SourceLocation{file, number, 1}, "[" + table + "]", "", "is given twice");
      } else {
        const int column = static_cast<int>(r.pos()) + 1;
        const std::string key = r.bare();
        if (r.peek() == '.') r.fail("is a dotted key, which the import does not read");
        r.expect('=', "=");
        TomlValue v = r.value();
        if (!r.done()) r.fail("has text after the value");
        v.at = SourceLocation{file, number, column};
        v.line = line;
        const std::string full = table.empty() ? key : table + "." + key;
        if (out.count(full) != 0) throw ScenarioError(v.at, full, "", "is given twice");
        out.emplace(full, std::move(v));
      }
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return out;
}

}  // namespace shardmeter::cli
