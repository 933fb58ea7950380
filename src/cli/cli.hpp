#pragma once
// The shardmeter command line: global options (--help, --version) and dispatch to one command.
#include <iosfwd>
#include <stdexcept>
#include <string>
#include <vector>

namespace shardmeter::cli {

// A mistake on the command line (unknown option, missing argument). The CLI prints it and exits with status 2.
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Runs `shardmeter <args>` and returns the exit status. Throws ScenarioError or UsageError for bad input
// (main maps both to status 2) and anything else for internal errors (status 1).
int run(const std::vector<std::string>& args, std::ostream& out);

}  // namespace shardmeter::cli
