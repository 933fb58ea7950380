#pragma once
// The answer a reader child process (results/files/isolated_process.hpp) sends its parent: a result file's run
// information, columns, units and rows as frames of plain bytes, and the decoder that checks each frame before
// anything of it is used. The parent trusts nothing in a frame: every length, count, tag, column index, metric
// name and the order of the frames is checked, and a violation is a WireError.
//
// Frames (tag byte first; integers little-endian; a string is a u64 length and its bytes):
//   'E' problem:u8 detail:str                  an InputError in the child; nothing follows
//   'I' RunInfo (every field, optionals with a presence byte)
//   'C' columns:u64 str... units:u64 str...    before any 'R'
//   'R' rows:u64, each cells:u64, each column:u32 tag:u8 value (i64 | f64 | str | u8)
//   'A' has_all:u8
//   'D'                                        the answer is complete; nothing follows
#include <cstddef>
#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "results/errors.hpp"
#include "results/front/row.hpp"

namespace shardmeter::results::wire {

class WireError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

// Child side.
std::string error_frame(InputProblem problem, std::string_view detail);
std::string run_info_frame(const RunInfo& info);
std::string columns_frame(const std::vector<std::string>& columns, const std::vector<std::string>& units);
std::string has_all_frame(bool has_all);
std::string done_frame();

// Rows collected into 'R' frames of about `target_bytes`.
class RowBatch {
public:
  explicit RowBatch(const std::vector<std::string>& columns, std::size_t target_bytes = std::size_t{1} << 20);
  void add(const Row& row);   // throws WireError for a cell whose column is not one of `columns`
  bool full() const { return bytes_.size() >= target_; }
  bool empty() const { return rows_ == 0; }
  std::string take();         // the frame; the batch is empty afterwards

private:
  std::vector<std::pair<std::string_view, std::uint32_t>> index_;   // sorted by name; first column of that name
  std::size_t target_;
  std::string bytes_;
  std::uint64_t rows_ = 0;
};

// Parent side: feed every frame in order; rows go to `visit` when given, else into `rows`.
class AnswerDecoder {
public:
  explicit AnswerDecoder(std::function<void(const Row&)> visit = {}) : visit_(std::move(visit)) {}
  void frame(std::string_view bytes);   // throws WireError

  std::optional<RunInfo> info;
  std::optional<std::vector<std::string>> columns;
  std::vector<std::string> units;
  std::vector<Row> rows;
  std::optional<bool> has_all;
  std::optional<std::pair<InputProblem, std::string>> error;
  bool done = false;

private:
  std::function<void(const Row&)> visit_;
};

}  // namespace shardmeter::results::wire
