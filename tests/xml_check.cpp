#include "tests/xml_check.hpp"

#include <cctype>
#include <sstream>

namespace shardmeter::test {

bool XmlElement::has_class(std::string_view cls) const {
  const auto it = attributes.find("class");
  if (it == attributes.end()) return false;
  std::istringstream words(it->second);
  for (std::string w; words >> w;)
    if (w == cls) return true;
  return false;
}

std::size_t XmlDocument::count(std::string_view name) const {
  std::size_t n = 0;
  for (const XmlElement& e : elements) n += e.name == name;
  return n;
}

std::size_t XmlDocument::count_class(std::string_view cls) const {
  std::size_t n = 0;
  for (const XmlElement& e : elements) n += e.has_class(cls);
  return n;
}

namespace {

class Parser {
public:
  explicit Parser(std::string_view s) : s_(s) {}

  XmlDocument run() {
    XmlDocument doc;
    try {
      skip_misc(true);
      if (at_end() || s_[i_] != '<') fail("no root element");
      element(doc);
      skip_misc(false);
      if (!at_end()) fail("content after the root element");
      doc.ok = true;
    } catch (const std::string& message) {
      doc.ok = false;
      doc.error = message;
    }
    return doc;
  }

private:
  [[noreturn]] void fail(const std::string& what) const { throw what + " at byte " + std::to_string(i_); }
  bool at_end() const { return i_ >= s_.size(); }
  bool starts(std::string_view p) const { return s_.substr(i_, p.size()) == p; }
  void skip_space() {
    while (!at_end() && std::isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  void skip_past(std::string_view end, const char* what) {
    const auto pos = s_.find(end, i_);
    // Appended rather than `std::string("...") + what`: at -O1 g++ 12 reports a false -Warray-bounds error on the
    // inlined concatenation (an error under -Werror).
    if (pos == std::string_view::npos) fail(std::string("unterminated ").append(what));
    i_ = pos + end.size();
  }
  // Whitespace, comments, processing instructions and (before the root) a DOCTYPE.
  void skip_misc(bool prolog) {
    while (true) {
      skip_space();
      if (starts("<!--")) skip_past("-->", "comment");
      else if (starts("<?")) skip_past("?>", "processing instruction");
      else if (prolog && starts("<!DOCTYPE")) skip_past(">", "DOCTYPE");
      else return;
    }
  }
  std::string name() {
    const std::size_t start = i_;
    while (!at_end() && (std::isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '-' || s_[i_] == '_' ||
                         s_[i_] == ':' || s_[i_] == '.' || static_cast<unsigned char>(s_[i_]) >= 0x80))
      ++i_;
    if (i_ == start || std::isdigit(static_cast<unsigned char>(s_[start])) || s_[start] == '-') fail("bad name");
    return std::string(s_.substr(start, i_ - start));
  }
  // Decodes text up to `stop` (exclusive), checking entity references.
  std::string decode(std::size_t stop) {
    std::string out;
    while (i_ < stop) {
      const char c = s_[i_];
      if (c == '<') fail("'<' in character data");
      if (c != '&') {
        out += c;
        ++i_;
        continue;
      }
      const auto semi = s_.find(';', i_);
      if (semi == std::string_view::npos || semi > stop) fail("'&' without ';'");
      const std::string_view ref = s_.substr(i_ + 1, semi - i_ - 1);
      if (ref == "amp") out += '&';
      else if (ref == "lt") out += '<';
      else if (ref == "gt") out += '>';
      else if (ref == "quot") out += '"';
      else if (ref == "apos") out += '\'';
      else if (ref.size() > 1 && ref[0] == '#') {
        const bool hex = ref[1] == 'x';
        const std::string_view digits = ref.substr(hex ? 2 : 1);
        if (digits.empty()) fail("empty character reference");
        for (const char d : digits)
          if (!(hex ? std::isxdigit(static_cast<unsigned char>(d)) : std::isdigit(static_cast<unsigned char>(d))))
            fail("bad character reference");
        out += '?';   // the code point itself does not matter to the tests
      } else {
        fail("undefined entity &" + std::string(ref) + ";");
      }
      i_ = semi + 1;
    }
    return out;
  }
  void element(XmlDocument& doc) {
    ++i_;   // '<'
    XmlElement e;
    e.name = name();
    while (true) {
      const std::size_t before = i_;
      skip_space();
      if (at_end()) fail("unterminated start tag <" + e.name);
      if (starts("/>")) {
        i_ += 2;
        doc.elements.push_back(std::move(e));
        return;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      if (i_ == before) fail("no space before an attribute of <" + e.name);
      const std::string attribute = name();
      skip_space();
      if (at_end() || s_[i_] != '=') fail("attribute " + attribute + " without '='");
      ++i_;
      skip_space();
      if (at_end() || (s_[i_] != '"' && s_[i_] != '\'')) fail("unquoted attribute " + attribute);
      const char quote = s_[i_++];
      const auto close = s_.find(quote, i_);
      if (close == std::string_view::npos) fail("unterminated attribute " + attribute);
      std::string value = decode(close);
      i_ = close + 1;
      if (!e.attributes.emplace(attribute, std::move(value)).second) fail("duplicate attribute " + attribute);
    }
    const std::string element_name = e.name;
    doc.elements.push_back(std::move(e));
    while (true) {
      if (at_end()) fail("<" + element_name + "> is never closed");
      if (starts("</")) {
        i_ += 2;
        const std::string closing = name();
        skip_space();
        if (at_end() || s_[i_] != '>') fail("bad end tag </" + closing);
        ++i_;
        if (closing != element_name) fail("</" + closing + "> closes <" + element_name + ">");
        return;
      }
      if (starts("<!--")) {
        skip_past("-->", "comment");
      } else if (starts("<![CDATA[")) {
        const auto end = s_.find("]]>", i_);
        if (end == std::string_view::npos) fail("unterminated CDATA");
        doc.text += s_.substr(i_ + 9, end - i_ - 9);
        i_ = end + 3;
      } else if (starts("<?")) {
        skip_past("?>", "processing instruction");
      } else if (s_[i_] == '<') {
        element(doc);
      } else {
        const auto next = s_.find('<', i_);
        doc.text += decode(next == std::string_view::npos ? s_.size() : next);
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

XmlDocument parse_xml(std::string_view document) { return Parser(document).run(); }

}  // namespace shardmeter::test
