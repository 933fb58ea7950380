#include "src/import/launch_words.hpp"

namespace shardmeter::cli {

LaunchText split_launch_text(const std::string& text, const std::string& file) {
  LaunchText out;
  int line = 1, column = 1;
  std::size_t i = 0;
  const auto advance = [&] {
    if (text[i] == '\n') {
      ++line;
      column = 1;
    } else {
      ++column;
    }
    ++i;
  };
  while (i < text.size()) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      advance();
      continue;
    }
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      advance();
      continue;
    }
    if (c == '#') {
      const SourceLocation at{file, line, column};
      std::string comment;
      advance();
      while (i < text.size() && text[i] != '\n') {
        comment += text[i];
        advance();
      }
      out.comments.emplace_back(at, comment);
      continue;
    }
    LaunchWord word{"", SourceLocation{file, line, column}, ""};
    while (i < text.size()) {
      const char d = text[i];
      if (d == ' ' || d == '\t' || d == '\r' || d == '\n') break;
      if (d == '\'' || d == '"') {
        const SourceLocation open{file, line, column};
        advance();
        while (i < text.size() && text[i] != d) {
          if (d == '"' && text[i] == '\\' && i + 1 < text.size()) advance();
          word.text += text[i];
          advance();
        }
        if (i >= text.size()) throw ScenarioError(open, "", "", "opens a quote that is never closed");
        advance();
        continue;
      }
      if (d == '\\' && i + 1 < text.size()) {
        advance();
        if (text[i] == '\n') {
          advance();
          continue;
        }
      }
      word.text += text[i];
      advance();
    }
    out.words.push_back(std::move(word));
  }
  return out;
}

}  // namespace shardmeter::cli
