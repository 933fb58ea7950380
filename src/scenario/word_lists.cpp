#include "src/scenario/word_lists.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

namespace shardmeter::cli {

std::string join(std::span<const std::string_view> names, std::string_view separator) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += separator;
    text += names[i];
  }
  return text;
}

std::string join(const std::vector<std::string>& names, std::string_view separator) {
  std::vector<std::string_view> views(names.begin(), names.end());
  return join(views, separator);
}

namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      const std::size_t substitute = diagonal + (a[i - 1] == b[j - 1] ? 0 : 1);
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, substitute});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string lower(std::string_view text) {
  std::string out(text);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

std::string closest_match(std::string_view typed, std::span<const std::string_view> candidates) {
  // Case does not count ("H100" -> "h100-sxm"). A candidate that extends the word ("h100" -> "h100-sxm") beats one
  // that is merely close in edit distance.
  const std::string word = lower(typed);
  const std::size_t limit = std::max<std::size_t>(2, word.size() / 3);
  std::string best;
  std::pair<int, std::size_t> best_score{2, 0};
  for (std::string_view candidate : candidates) {
    const std::string c = lower(candidate);
    const std::size_t d = edit_distance(word, c);
    const bool prefix = word.size() >= 3 && (c.starts_with(word) || word.starts_with(c));
    const std::pair<int, std::size_t> score{prefix ? 0 : 1, d};
    if ((d <= limit || prefix) && score < best_score) {
      best = std::string(candidate);
      best_score = score;
    }
  }
  return best;
}

std::string closest_match(std::string_view word, const std::vector<std::string>& candidates) {
  std::vector<std::string_view> views(candidates.begin(), candidates.end());
  return closest_match(word, views);
}

}  // namespace shardmeter::cli
