#include "src/cli/command_line.hpp"

#include <cmath>
#include <ostream>

#include <boost/program_options.hpp>

#include "src/cli/commands.hpp"
#include "src/scenario/scenario_document.hpp"
#include "src/scenario/version.hpp"

namespace shardmeter::cli {

namespace po = boost::program_options;

namespace {

constexpr const char* kPositional = "positional";

// --threads: more workers than this is a typo, not a machine.
constexpr Range kThreads = Range::between(0, 1024);

// The long name of "name,o".
std::string long_name(const char* name) {
  const std::string text(name);
  return text.substr(0, text.find(','));
}

}  // namespace

struct CommandLine::Impl {
  explicit Impl(const Command& c) : command(c) {}
  const Command& command;
  po::options_description options{"Options"};
  po::variables_map values;
  std::vector<std::string> positional;
  std::vector<std::pair<std::string, Range>> bounded;  // numeric options and their bounds, checked by parse()
  std::vector<std::string> texts;                      // text options: an empty value is refused by parse()
};

CommandLine::CommandLine(const Command& command) : impl_(std::make_unique<Impl>(command)) {}
CommandLine::~CommandLine() = default;

CommandLine& CommandLine::add(SharedOption option) {
  switch (option) {
    case SharedOption::set:
      return texts("set", "KEY=VALUE",
                   "override one scenario key by its dotted path, e.g. --set plan.tp=4 "
                   "--set cluster.islands.0.gpus=512 (repeatable; VALUE is YAML: 4, zero1, [1, 2], "
                   "{gpu: h100-sxm, gpus: 64})");
    case SharedOption::data_dir:
      return text("data-dir", "DIR",
                  "catalogs and model presets (default: $SHARDMETER_DATA_DIR, else the installed share/shardmeter "
                  "beside the binary, else the source tree's scenarios/)");
    case SharedOption::threads:
      return integer("threads", "N", "worker threads (default 0 = all cores); the result is the same for any N",
                     kThreads);
    case SharedOption::json:
      return flag("json", "print one JSON object on stdout instead of the text output");
    case SharedOption::prices:
      return text("prices", "prices.yaml",
                  "re-price catalog GPUs by type: prices: {GPU: {price_usd_per_gpu_hour: X, "
                  "spot_price_usd_per_gpu_hour: Y}}; other GPU types keep the catalog's prices");
  }
  return *this;
}

CommandLine& CommandLine::output(const char* value_name, const char* help) {
  return text("output,o", value_name, help);
}

CommandLine& CommandLine::flag(const char* name, const char* help) {
  impl_->options.add_options()(name, po::bool_switch(), help);
  return *this;
}

CommandLine& CommandLine::text(const char* name, const char* value_name, const char* help,
                               std::optional<std::string> fallback) {
  auto* value = po::value<std::string>()->value_name(value_name);
  if (fallback) value->default_value(*fallback);
  impl_->options.add_options()(name, value, help);
  impl_->texts.push_back(long_name(name));
  return *this;
}

CommandLine& CommandLine::texts(const char* name, const char* value_name, const char* help) {
  impl_->options.add_options()(name, po::value<std::vector<std::string>>()->composing()->value_name(value_name), help);
  return *this;
}

CommandLine& CommandLine::number(const char* name, const char* value_name, const char* help, Range bounds,
                                 std::optional<double> fallback) {
  auto* value = po::value<double>()->value_name(value_name);
  if (fallback) value->default_value(*fallback);
  impl_->options.add_options()(name, value, help);
  impl_->bounded.emplace_back(long_name(name), bounds);
  return *this;
}

CommandLine& CommandLine::integer(const char* name, const char* value_name, const char* help, Range bounds,
                                  std::optional<std::int64_t> fallback) {
  auto* value = po::value<std::int64_t>()->value_name(value_name);
  if (fallback) value->default_value(*fallback);
  impl_->options.add_options()(name, value, help);
  impl_->bounded.emplace_back(long_name(name), bounds);
  return *this;
}

UsageError CommandLine::usage(const std::string& problem) const {
  const std::string name(impl_->command.name);
  return UsageError("shardmeter " + name + ": " + problem + " (see shardmeter " + name + " --help)");
}

std::vector<std::string> CommandLine::split_words(const std::string& text) { return po::split_unix(text); }

void CommandLine::parse(const std::vector<std::string>& args) {
  impl_->options.add_options()("help,h", "print this help");
  po::options_description all;
  all.add(impl_->options);
  all.add_options()(kPositional, po::value<std::vector<std::string>>(), "positional arguments");
  po::positional_options_description positional;
  positional.add(kPositional, -1);
  try {
    po::store(po::command_line_parser(args).options(all).positional(positional).run(), impl_->values);
    po::notify(impl_->values);
  } catch (const po::error& e) {
    throw usage(e.what());
  }
  // An empty value names nothing: `-o ""` used to succeed writing nothing.
  for (const std::string& name : impl_->texts)
    if (has(name.c_str()) && !impl_->values[name].defaulted() && impl_->values[name].as<std::string>().empty())
      throw usage("--" + name + " needs a value (it was given as an empty string)");
  if (impl_->values.count(kPositional)) impl_->positional = impl_->values[kPositional].as<std::vector<std::string>>();
  for (const auto& [name, bounds] : impl_->bounded) {
    if (!has(name.c_str())) continue;
    const po::variable_value& v = impl_->values[name];
    const double x = v.value().type() == typeid(double) ? v.as<double>() : static_cast<double>(v.as<std::int64_t>());
    if (!std::isfinite(x) || !bounds.contains(x)) throw usage("--" + name + " must be " + bounds.text());
  }
}

bool CommandLine::wants_help() const { return impl_->values.count("help") > 0; }

void CommandLine::print_help(std::ostream& out) const {
  out << "Usage: shardmeter " << impl_->command.usage << "\n" << impl_->command.summary << ".\n\n" << impl_->options;
}

bool CommandLine::has(const char* name) const { return impl_->values.count(name) > 0; }
bool CommandLine::flag(const char* name) const { return has(name) && impl_->values[name].as<bool>(); }
std::string CommandLine::text(const char* name) const {
  return has(name) ? impl_->values[name].as<std::string>() : std::string();
}
std::vector<std::string> CommandLine::texts(const char* name) const {
  return has(name) ? impl_->values[name].as<std::vector<std::string>>() : std::vector<std::string>{};
}
double CommandLine::number(const char* name) const { return impl_->values[name].as<double>(); }
std::int64_t CommandLine::integer(const char* name) const { return impl_->values[name].as<std::int64_t>(); }
const std::vector<std::string>& CommandLine::positional() const { return impl_->positional; }

std::string CommandLine::single_positional(const char* label, const char* what) const {
  const std::vector<std::string>& p = impl_->positional;
  if (p.size() == 1) return p.front();
  const std::string explained = *what ? std::string(label) + " (" + what + ")" : std::string(label);
  throw usage(p.empty() ? "missing " + explained
                        : "expected one " + std::string(label) + ", got " + std::to_string(p.size()));
}

std::vector<Override> CommandLine::overrides() const {
  std::vector<Override> out;
  for (const std::string& text : texts("set")) out.push_back(parse_override(text));
  return out;
}

std::string CommandLine::data_dir() const { return has("data-dir") ? text("data-dir") : cli::data_dir(); }
int CommandLine::threads() const { return has("threads") ? static_cast<int>(integer("threads")) : 0; }
bool CommandLine::json() const { return flag("json"); }
std::string CommandLine::output() const { return text("output"); }

}  // namespace shardmeter::cli
