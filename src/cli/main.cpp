// shardmeter: parse the command line, run one command, map its outcome to an exit status.
//   0 success; 2 bad input (ScenarioError, InputError, UsageError: one line on stderr starting with its location);
//   1 internal error.
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "results/files/hdf5_writer.hpp"
#include "results/files/temp_cleanup.hpp"
#include "src/cli/cli.hpp"
#include "src/scenario/scenario_error.hpp"

namespace {

int run_command(int argc, char** argv) {
  try {
    return shardmeter::cli::run(std::vector<std::string>(argv + 1, argv + argc), std::cout);
  } catch (const shardmeter::cli::ScenarioError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const shardmeter::cli::InputError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const shardmeter::cli::UsageError& e) {
    std::cerr << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "shardmeter: internal error: " << e.what() << "\n";
    return 1;
  } catch (...) {
    std::cerr << "shardmeter: internal error\n";
    return 1;
  }
}

}  // namespace

int main(int argc, char** argv) {
  shardmeter::results::install_temp_cleanup();  // SIGINT/SIGTERM/SIGHUP remove half-written outputs
  const int status = run_command(argc, argv);
  if (shardmeter::results::hdf5_file_left_open()) {
    // A full disk left an HDF5 file that cannot be closed; the library's exit handler would crash on it.
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(status);
  }
  return status;
}
