// libFuzzer harness (issue 33): nightly's index page from hostile scenario file names, names, messages and numbers.
// The input is split at NUL bytes into fields: each group of three is a scenario's file stem, its `name:` and a
// message; the bytes of the message also give its numbers (raw doubles: NaN, infinities and subnormals included).
// Every link must be a percent-encoded relative path starting with "./" (never a scheme, fragment, query or line
// break), and the page must hold exactly as many links as files were given; otherwise the harness aborts.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "results/report/nightly_index.hpp"

namespace {

using namespace shardmeter;

double number_from(std::string_view bytes, std::size_t at) {
  double v = 0;
  char raw[sizeof v] = {};
  for (std::size_t i = 0; i < sizeof v && at + i < bytes.size(); ++i) raw[i] = bytes[at + i];
  std::memcpy(&v, raw, sizeof v);
  return v;
}

bool href_ok(std::string_view h) {
  if (!h.starts_with("./")) return false;
  for (const char c : h) {
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                    c == '.' || c == '_' || c == '~' || c == '/' || c == '%';
    if (!ok) return false;
  }
  return true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  std::vector<std::string_view> fields;
  for (std::size_t start = 0;;) {
    const std::size_t end = bytes.find('\0', start);
    fields.push_back(bytes.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
    if (end == std::string_view::npos || fields.size() >= 300) break;
    start = end + 1;
  }
  results::IndexPage page;
  page.date = "2025-01-02";
  page.scenario_dir = std::string(fields.front());
  std::size_t files = 0;
  for (std::size_t i = 0; i + 2 < fields.size(); i += 3) {
    results::IndexEntry x;
    x.scenario = std::string(fields[i]);
    x.scenario_name = std::string(fields[i + 1]);
    x.message = std::string(fields[i + 2]);
    const std::string_view m = fields[i + 2];
    x.status = static_cast<results::ScenarioStatus>((m.empty() ? 0 : static_cast<unsigned char>(m[0])) % 3);
    x.front_size = m.size();
    x.cheapest_cost_usd = number_from(m, 0);
    x.fastest_tokens_per_s = number_from(m, 8);
    x.baseline_date = m.size() % 2 == 0 ? "2025-01-01" : "";
    x.cheapest_cost_change = number_from(m, 16);
    x.fastest_throughput_change = number_from(m, 24);
    x.elapsed_s = number_from(m, 32);
    if (!x.scenario.empty()) {
      x.html = x.scenario + ".html";
      x.markdown = x.scenario + ".md";
      x.front = x.scenario + ".h5";
      files += 4;   // the name and the three files
    }
    page.entries.push_back(std::move(x));
  }
  const std::string html = results::render_index_html(page);
  std::size_t links = 0;
  for (std::size_t at = html.find("<a "); at != std::string::npos; at = html.find("<a ", at + 1)) {
    ++links;
    const std::size_t open = html.find("href=\"", at);
    const std::size_t close = open == std::string::npos ? open : html.find('"', open + 6);
    if (close == std::string::npos || !href_ok(std::string_view(html).substr(open + 6, close - open - 6))) {
      std::fprintf(stderr, "fuzz_nightly_index: a link that is not a ./relative, percent-encoded path\n");
      std::abort();
    }
  }
  if (links != files) {
    std::fprintf(stderr, "fuzz_nightly_index: %zu links for %zu files (user text made or broke a link)\n", links, files);
    std::abort();
  }
  // Numbers are printed in the number cells (class "num..."); names and messages are user text, which may say
  // "nan%" itself, and links percent-encode it (">nan<" is "%3Enan%3C"), so only the number cells are checked.
  for (std::size_t at = html.find("<td class=\"num"); at != std::string::npos; at = html.find("<td class=\"num", at + 1)) {
    const std::size_t open = html.find('>', at);
    const std::size_t close = open == std::string::npos ? open : html.find("</td>", open);
    if (close == std::string::npos) break;
    const std::string cell = html.substr(open + 1, close - open - 1);
    for (const char* bad : {"inf", "nan"})
      if (cell.find(bad) != std::string::npos) {
        std::fprintf(stderr, "fuzz_nightly_index: a number cell prints %s: %s\n", bad, cell.c_str());
        std::abort();
      }
  }
  return 0;
}
