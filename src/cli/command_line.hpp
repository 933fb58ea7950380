#pragma once
// One command's options, declared through this helper, and their values once parsed. The options several commands
// share (--set, --data-dir, --threads, --json, -o, --help) are declared here once — one spelling, one help text,
// one bound — and every numeric option is checked against its declared bounds in one pass. Boost.Program_options
// stays inside src/cli/command_line.cpp.
//
//   CommandLine line(command);
//   line.add(SharedOption::set).add(SharedOption::data_dir).flag("all", "also write /all");
//   line.parse(args);                       // UsageError for an unknown option or a bad value
//   if (line.wants_help()) { line.print_help(out); return 0; }
//   const std::string scenario = line.single_positional("SCENARIO", "a YAML file");
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/cli/cli.hpp"
#include "src/scenario/range.hpp"

namespace shardmeter::cli {

struct Command;
struct Override;

enum class SharedOption {
  set,        // --set KEY=VALUE, repeatable: scenario overrides
  data_dir,   // --data-dir DIR: catalogs and model presets
  threads,    // --threads N: worker threads, 0 = all cores
  json,       // --json: one JSON object on stdout instead of the text output
  prices,     // --prices FILE: GPU prices by GPU type, over the catalog's (src/scenario/price_overrides.hpp)
};

class CommandLine {
public:
  explicit CommandLine(const Command& command);
  ~CommandLine();
  CommandLine(const CommandLine&) = delete;
  CommandLine& operator=(const CommandLine&) = delete;

  // ---- declaring, in the order --help lists them (--help itself comes last) ----------------------------------
  CommandLine& add(SharedOption option);
  // -o/--output FILE: where the command writes its result (atomically: a failure leaves no partial file).
  CommandLine& output(const char* value_name, const char* help);
  CommandLine& flag(const char* name, const char* help);
  CommandLine& text(const char* name, const char* value_name, const char* help,
                    std::optional<std::string> fallback = std::nullopt);
  CommandLine& texts(const char* name, const char* value_name, const char* help);  // repeatable
  CommandLine& number(const char* name, const char* value_name, const char* help, Range bounds,
                      std::optional<double> fallback = std::nullopt);
  CommandLine& integer(const char* name, const char* value_name, const char* help, Range bounds,
                       std::optional<std::int64_t> fallback = std::nullopt);

  // ---- parsing -----------------------------------------------------------------------------------------------
  // `args` are the words after the command name. Throws UsageError for an unknown option, a malformed value or a
  // number outside its bounds. Prints nothing.
  void parse(const std::vector<std::string>& args);
  bool wants_help() const;
  // "Usage: shardmeter <usage>\n<summary>.\n\n<options>"
  void print_help(std::ostream& out) const;
  // Shell-like words of one line: blanks separate, quotes ('...', "...") and backslashes group; nothing is expanded.
  static std::vector<std::string> split_words(const std::string& text);
  // "shardmeter <command>: <problem> (see shardmeter <command> --help)"
  UsageError usage(const std::string& problem) const;

  // ---- values ------------------------------------------------------------------------------------------------
  bool has(const char* name) const;  // given on the command line (or declared with a fallback)
  bool flag(const char* name) const;
  std::string text(const char* name) const;  // "" when absent
  std::vector<std::string> texts(const char* name) const;
  double number(const char* name) const;
  std::int64_t integer(const char* name) const;
  const std::vector<std::string>& positional() const;
  // The one positional argument; UsageError naming `label` ("SCENARIO", "FRONT.h5"), with `what` in parentheses
  // when missing.
  std::string single_positional(const char* label, const char* what = "") const;

  // ---- shared options ------------------------------------------------------------------------------------------
  std::vector<Override> overrides() const;  // --set, parsed, in command-line order (ScenarioError when malformed)
  std::string data_dir() const;             // --data-dir, or cli::data_dir() (src/scenario/version.hpp)
  int threads() const;                      // --threads, 0 when absent
  bool json() const;                        // --json
  std::string output() const;               // -o, "" when absent

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace shardmeter::cli
