// The public HDF5 readers (hdf5_reader.hpp): the in-process parser run in a child process, its answer checked
// frame by frame. docs/hardening.md "Reading foreign HDF5 files".
#include <new>
#include <optional>
#include <string>

#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"
#include "results/files/isolated_process.hpp"
#include "results/files/result_wire.hpp"

namespace shardmeter::results {

namespace fs = std::filesystem;

namespace {

// InputError's what() is "cannot read PATH: DETAIL"; the child sends DETAIL so the parent builds the same error.
std::string detail_of(const InputError& e) {
  const std::string what = e.what();
  const std::string prefix = "cannot read " + e.path() + ": ";
  return what.starts_with(prefix) ? what.substr(prefix.size()) : what;
}

// Runs `parse` in the child; every exception it throws becomes an error frame.
template <class Parse>
void child_answer(FrameSink& sink, Parse&& parse) {
  std::string error;
  try {
    parse();
    return;
  } catch (const InputError& e) {
    error = wire::error_frame(e.problem(), detail_of(e));
  } catch (const std::bad_alloc&) {
    error = wire::error_frame(InputProblem::wrong_schema, "it declares more data than fits in memory");
  } catch (const std::exception&) {
    error = wire::error_frame(InputProblem::wrong_schema, "its data cannot be read as a ShardMeter result file");
  }
  sink.send(error);
}

// Runs the child and the decoder; maps a failed child and a malformed answer to InputError.
void guarded(const std::string& path, const std::function<void(FrameSink&)>& child, wire::AnswerDecoder& answer,
             const IsolationLimits& limits) {
  const auto unreadable = [&](const std::string& why) {
    return InputError(path, InputProblem::not_hdf5, "not a readable ShardMeter result file (" + why + ")");
  };
  try {
    run_isolated(child, [&](std::string_view frame) { answer.frame(frame); }, limits);
  } catch (const ChildFailure& e) {
    throw unreadable(e.what());
  } catch (const wire::WireError& e) {
    throw unreadable(std::string("the reader process's answer is malformed: ") + e.what());
  }
  if (answer.error) throw InputError(path, answer.error->first, answer.error->second);
  if (!answer.done) throw unreadable("the reader process's answer is incomplete");
}

}  // namespace

ResultFile read_front(const fs::path& path, const IsolationLimits& limits) {
  const std::string p = path.string();
  wire::AnswerDecoder answer;
  guarded(
      p,
      [&](FrameSink& sink) {
        child_answer(sink, [&] {
          // Streamed: the child holds one block of rows at a time and sends a frame per batch, which keeps it
          // within the guard's memory and processor-time limits however large the front.
          std::vector<std::string> columns;   // outlives the batch, which refers to the names
          std::optional<wire::RowBatch> batch;
          bool has_all = false;
          in_process::for_each_front_row(
              path,
              [&](const in_process::FrontHeader& h) {
                sink.send(wire::run_info_frame(h.info));
                sink.send(wire::columns_frame(h.columns, h.units));
                columns = h.columns;
                batch.emplace(columns);
                has_all = h.has_all;
              },
              [&](const Row& row) {
                batch->add(row);
                if (batch->full()) sink.send(batch->take());
              });
          if (!batch->empty()) sink.send(batch->take());
          sink.send(wire::has_all_frame(has_all));
          sink.send(wire::done_frame());
        });
      },
      answer, limits);
  if (!answer.info || !answer.columns || !answer.has_all)
    throw InputError(p, InputProblem::not_hdf5,
                     "not a readable ShardMeter result file (the reader process's answer lacks a part)");
  ResultFile out;
  out.info = std::move(*answer.info);
  out.front.columns = std::move(*answer.columns);
  out.front.units = std::move(answer.units);
  out.front.rows = std::move(answer.rows);
  out.has_all = *answer.has_all;
  return out;
}

Table read_all(const fs::path& path, const IsolationLimits& limits) {
  Table t;
  for_each_all_row(path, [&](const Row& r) { t.rows.push_back(r); }, &t.columns, limits);
  return t;
}

void for_each_all_row(const fs::path& path, const std::function<void(const Row&)>& visit,
                      std::vector<std::string>* columns, const IsolationLimits& limits) {
  const std::string p = path.string();
  const wire::AnswerDecoder* decoder = nullptr;
  bool named = false;
  const auto name_columns = [&] {  // the names before the first row, as the in-process reader gives them
    if (named) return;
    named = true;
    if (columns != nullptr && decoder->columns)
      columns->insert(columns->end(), decoder->columns->begin(), decoder->columns->end());
  };
  wire::AnswerDecoder answer([&](const Row& row) {
    name_columns();
    visit(row);
  });
  decoder = &answer;
  guarded(
      p,
      [&](FrameSink& sink) {
        child_answer(sink, [&] {
          std::vector<std::string> names;
          std::optional<wire::RowBatch> batch;
          const auto start = [&] {
            sink.send(wire::columns_frame(names, {}));
            batch.emplace(names);
          };
          in_process::for_each_all_row(
              path,
              [&](const Row& row) {
                if (!batch) start();
                batch->add(row);
                if (batch->full()) sink.send(batch->take());
              },
              &names);
          if (!batch) start();
          if (!batch->empty()) sink.send(batch->take());
          sink.send(wire::done_frame());
        });
      },
      answer, limits);
  if (!answer.columns)
    throw InputError(p, InputProblem::not_hdf5,
                     "not a readable ShardMeter result file (the reader process's answer lacks a part)");
  name_columns();
}

}  // namespace shardmeter::results
