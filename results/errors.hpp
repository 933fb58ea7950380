#pragma once
// Typed errors of result files. The CLI maps them to messages and exit status 2; nothing here calls exit().
#include <stdexcept>
#include <string>

namespace shardmeter::results {

// Base of every results/ error; what() is a complete sentence naming the file when there is one.
class ResultsError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// A result file could not be written. The output path (not the temporary file) is named; no partial file remains.
class OutputError : public ResultsError {
public:
  OutputError(std::string path, const std::string& problem);
  const std::string& path() const { return path_; }

private:
  std::string path_;
};

// Why a result file could not be read.
enum class InputProblem {
  missing,          // no such file
  not_hdf5,         // exists, but is not an HDF5 file (or cannot be opened)
  not_shardmeter,   // HDF5, but not written by ShardMeter (no `format` attribute or /front)
  wrong_schema,     // ShardMeter file of an unsupported schema_version, a missing attribute, a column of another type
  missing_dataset,  // e.g. read_all() on a file written without --all
  malformed,        // text file (CSV/JSON) that does not parse
};

class InputError : public ResultsError {
public:
  InputError(std::string path, InputProblem problem, const std::string& detail);
  const std::string& path() const { return path_; }
  InputProblem problem() const { return problem_; }

private:
  std::string path_;
  InputProblem problem_;
};

}  // namespace shardmeter::results
