#include "results/errors.hpp"

#include <utility>

namespace shardmeter::results {

OutputError::OutputError(std::string path, const std::string& problem)
    : ResultsError("cannot write " + path + ": " + problem), path_(std::move(path)) {}

InputError::InputError(std::string path, InputProblem problem, const std::string& detail)
    : ResultsError("cannot read " + path + ": " + detail), path_(std::move(path)), problem_(problem) {}

}  // namespace shardmeter::results
