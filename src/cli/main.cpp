// shardmeter: parse the command line, run one command, map its outcome to an exit status.
//   0 success; 2 bad input (ScenarioError, InputError, UsageError: one line on stderr starting with its location);
//   1 internal error.
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "results/files/hdf5_writer.hpp"
#include "results/files/temp_cleanup.hpp"
#include "src/cli/checked_output.hpp"
#include "src/cli/cli.hpp"
#include "src/scenario/scenario_error.hpp"

namespace {

int run_command(int argc, char** argv, std::ostream& out) {
  try {
    return shardmeter::cli::run(std::vector<std::string>(argv + 1, argv + argc), out);
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

// Every byte of standard output written (issue 33): `export ... > /dev/full` or a pipe whose reader has gone is an
// error of the command, exit 2, not a silent truncation. Returns the status to exit with.
int check_standard_output(std::ostream& out, const shardmeter::cli::CheckedOutput& buffer, int status) {
  out.flush();
  if (out && buffer.error() == 0) return status;
  std::cerr << "shardmeter: standard output: write failed"
            << (buffer.error() != 0 ? std::string(": ") + std::strerror(buffer.error()) : std::string()) << "\n";
  return status == 0 ? 2 : status;
}

}  // namespace

int main(int argc, char** argv) {
  shardmeter::results::install_temp_cleanup();  // SIGINT/SIGTERM/SIGHUP remove half-written outputs; SIGPIPE ignored
  shardmeter::results::silence_hdf5_errors();   // libhdf5 errors become our located messages, never a stack dump
  shardmeter::cli::CheckedOutput stdout_buffer(STDOUT_FILENO);
  std::ostream out(&stdout_buffer);
  if (::isatty(STDOUT_FILENO) == 1) out << std::unitbuf;   // a terminal sees each line as it is printed
  const int status = check_standard_output(out, stdout_buffer, run_command(argc, argv, out));
  if (shardmeter::results::hdf5_file_left_open()) {
    // A full disk left an HDF5 file that cannot be closed; the library's exit handler would crash on it.
    out.flush();
    std::cerr.flush();
    std::_Exit(status);
  }
  return status;
}
