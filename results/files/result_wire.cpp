#include "results/files/result_wire.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "model/spec/metrics.hpp"

namespace shardmeter::results::wire {

namespace {

enum Tag : char { kError = 'E', kInfo = 'I', kColumns = 'C', kRows = 'R', kHasAll = 'A', kDone = 'D' };
enum CellTag : std::uint8_t { kInt = 0, kDouble = 1, kText = 2, kBool = 3 };

void put_u8(std::string& out, std::uint8_t v) { out.push_back(static_cast<char>(v)); }
void put_u32(std::string& out, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}
void put_i64(std::string& out, std::int64_t v) { put_u64(out, static_cast<std::uint64_t>(v)); }
void put_f64(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  put_u64(out, bits);
}
void put_str(std::string& out, std::string_view s) {
  put_u64(out, s.size());
  out.append(s);
}
void put_strs(std::string& out, const std::vector<std::string>& v) {
  put_u64(out, v.size());
  for (const std::string& s : v) put_str(out, s);
}

// Reads a frame; every read checks what is left.
class Cursor {
public:
  explicit Cursor(std::string_view bytes) : bytes_(bytes) {}
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint32_t u32() {
    const std::string_view b = take(4);
    std::uint32_t v = 0;
    for (int i = 3; i >= 0; --i) v = v << 8 | static_cast<std::uint8_t>(b[static_cast<std::size_t>(i)]);
    return v;
  }
  std::uint64_t u64() {
    const std::string_view b = take(8);
    std::uint64_t v = 0;
    for (int i = 7; i >= 0; --i) v = v << 8 | static_cast<std::uint8_t>(b[static_cast<std::size_t>(i)]);
    return v;
  }
  std::int64_t i64() { return static_cast<std::int64_t>(u64()); }
  double f64() {
    const std::uint64_t bits = u64();
    double v;
    std::memcpy(&v, &bits, 8);
    return v;
  }
  bool flag() {
    const std::uint8_t v = u8();
    if (v > 1) throw WireError(fmt::format("a flag of {}", v));
    return v == 1;
  }
  std::string str() {
    const std::uint64_t n = u64();
    if (n > left()) throw WireError(fmt::format("a string of {} bytes with {} left", n, left()));
    return std::string(take(static_cast<std::size_t>(n)));
  }
  // A count of elements that take at least `min_bytes` each: never more than what is left can hold.
  std::uint64_t count(std::size_t min_bytes) {
    const std::uint64_t n = u64();
    if (n > left() / min_bytes) throw WireError(fmt::format("a count of {} with {} bytes left", n, left()));
    return n;
  }
  std::vector<std::string> strs() {
    std::vector<std::string> v;
    for (std::uint64_t i = 0, n = count(8); i < n; ++i) v.push_back(str());
    return v;
  }
  std::size_t left() const { return bytes_.size() - at_; }
  void finish() const {
    if (left() != 0) throw WireError(fmt::format("{} bytes after the end of a frame", left()));
  }

private:
  std::string_view take(std::size_t n) {
    if (n > left()) throw WireError("a frame ends early");
    const std::string_view v = bytes_.substr(at_, n);
    at_ += n;
    return v;
  }
  std::string_view bytes_;
  std::size_t at_ = 0;
};

RunInfo decode_info(Cursor& c) {
  RunInfo info;
  info.scenario_text = c.str();
  info.scenario_name = c.str();
  info.version = c.str();
  info.method = c.str();
  info.seed = c.u64();
  info.threads = c.i64();
  info.ranks = c.i64();
  info.space_size = c.u64();
  info.visited = c.u64();
  if (c.flag()) info.estimated = c.u64();
  info.feasible = c.u64();
  for (std::uint64_t i = 0, n = c.count(16); i < n; ++i) {
    std::string reason = c.str();
    const std::uint64_t value = c.u64();
    if (!info.rejected.emplace(std::move(reason), value).second) throw WireError("a rejection reason twice");
  }
  info.elapsed_s = c.f64();
  info.complete = c.flag();
  for (std::uint64_t i = 0, n = c.count(9); i < n; ++i) {
    const std::string name = c.str();
    const model::Metric* metric = model::find_metric(name);
    if (metric == nullptr) throw WireError("an objective that is not a metric");
    const std::uint8_t d = c.u8();
    if (d > static_cast<std::uint8_t>(model::Direction::maximize)) throw WireError("an objective direction");
    info.objectives.push_back(model::Objective{metric, static_cast<model::Direction>(d)});
  }
  info.axes = c.strs();
  info.created = c.str();
  if (c.flag()) info.uncalibrated_gpus = c.strs();
  if (c.flag()) info.uncalibrated_gpu_stacks = c.strs();
  info.stack_source = c.str();
  info.counts_estimated = c.flag();
  return info;
}

}  // namespace

std::string error_frame(InputProblem problem, std::string_view detail) {
  std::string out(1, kError);
  put_u8(out, static_cast<std::uint8_t>(problem));
  put_str(out, detail);
  return out;
}

std::string run_info_frame(const RunInfo& info) {
  std::string out(1, kInfo);
  put_str(out, info.scenario_text);
  put_str(out, info.scenario_name);
  put_str(out, info.version);
  put_str(out, info.method);
  put_u64(out, info.seed);
  put_i64(out, info.threads);
  put_i64(out, info.ranks);
  put_u64(out, info.space_size);
  put_u64(out, info.visited);
  put_u8(out, info.estimated.has_value());
  if (info.estimated) put_u64(out, *info.estimated);
  put_u64(out, info.feasible);
  put_u64(out, info.rejected.size());
  for (const auto& [reason, value] : info.rejected) {
    put_str(out, reason);
    put_u64(out, value);
  }
  put_f64(out, info.elapsed_s);
  put_u8(out, info.complete);
  put_u64(out, info.objectives.size());
  for (const model::Objective& o : info.objectives) {
    put_str(out, o.name());
    put_u8(out, static_cast<std::uint8_t>(o.direction));
  }
  put_strs(out, info.axes);
  put_str(out, info.created);
  put_u8(out, info.uncalibrated_gpus.has_value());
  if (info.uncalibrated_gpus) put_strs(out, *info.uncalibrated_gpus);
  put_u8(out, info.uncalibrated_gpu_stacks.has_value());
  if (info.uncalibrated_gpu_stacks) put_strs(out, *info.uncalibrated_gpu_stacks);
  put_str(out, info.stack_source);
  put_u8(out, info.counts_estimated);
  return out;
}

std::string columns_frame(const std::vector<std::string>& columns, const std::vector<std::string>& units) {
  std::string out(1, kColumns);
  put_strs(out, columns);
  put_strs(out, units);
  return out;
}

std::string has_all_frame(bool has_all) {
  std::string out(1, kHasAll);
  put_u8(out, has_all);
  return out;
}

std::string done_frame() { return std::string(1, kDone); }

RowBatch::RowBatch(const std::vector<std::string>& columns, std::size_t target_bytes) : target_(target_bytes) {
  if (columns.size() > std::numeric_limits<std::uint32_t>::max()) throw WireError("too many columns");
  for (std::size_t i = 0; i < columns.size(); ++i) index_.emplace_back(columns[i], static_cast<std::uint32_t>(i));
  std::stable_sort(index_.begin(), index_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
}

void RowBatch::add(const Row& row) {
  put_u64(bytes_, row.size());
  for (const auto& [name, value] : row) {
    const auto it = std::lower_bound(index_.begin(), index_.end(), std::string_view(name),
                                     [](const auto& e, std::string_view n) { return e.first < n; });
    if (it == index_.end() || it->first != name) throw WireError("a cell of no column");
    put_u32(bytes_, it->second);
    if (const auto* i = std::get_if<std::int64_t>(&value)) {
      put_u8(bytes_, kInt);
      put_i64(bytes_, *i);
    } else if (const auto* d = std::get_if<double>(&value)) {
      put_u8(bytes_, kDouble);
      put_f64(bytes_, *d);
    } else if (const auto* s = std::get_if<std::string>(&value)) {
      put_u8(bytes_, kText);
      put_str(bytes_, *s);
    } else {
      put_u8(bytes_, kBool);
      put_u8(bytes_, std::get<bool>(value));
    }
  }
  ++rows_;
}

std::string RowBatch::take() {
  std::string out(1, kRows);
  put_u64(out, rows_);
  out += bytes_;
  bytes_.clear();
  rows_ = 0;
  return out;
}

void AnswerDecoder::frame(std::string_view bytes) {
  if (done || error) throw WireError("a frame after the end of the answer");
  if (bytes.empty()) throw WireError("an empty frame");
  Cursor c(bytes.substr(1));
  switch (bytes[0]) {
    case kError: {
      const std::uint8_t p = c.u8();
      if (p > static_cast<std::uint8_t>(InputProblem::malformed)) throw WireError("an unknown problem kind");
      std::string detail = c.str();
      c.finish();
      error.emplace(static_cast<InputProblem>(p), std::move(detail));
      return;
    }
    case kInfo:
      if (info) throw WireError("the run information twice");
      info = decode_info(c);
      break;
    case kColumns: {
      if (columns) throw WireError("the columns twice");
      std::vector<std::string> names = c.strs();
      units = c.strs();
      if (!units.empty() && units.size() != names.size()) throw WireError("units not one per column");
      if (names.size() > std::numeric_limits<std::uint32_t>::max()) throw WireError("too many columns");
      columns = std::move(names);
      break;
    }
    case kRows: {
      if (!columns) throw WireError("rows before the columns");
      for (std::uint64_t r = 0, n = c.count(8); r < n; ++r) {
        Row row;
        for (std::uint64_t i = 0, cells = c.count(6); i < cells; ++i) {
          const std::uint32_t column = c.u32();
          if (column >= columns->size()) throw WireError(fmt::format("column {} of {}", column, columns->size()));
          CellValue value;
          switch (c.u8()) {
            case kInt: value = c.i64(); break;
            case kDouble: value = c.f64(); break;
            case kText: value = c.str(); break;
            case kBool: value = c.flag(); break;
            default: throw WireError("an unknown cell type");
          }
          if (!row.emplace((*columns)[column], std::move(value)).second) throw WireError("a column twice in a row");
        }
        if (visit_) visit_(row);
        else rows.push_back(std::move(row));
      }
      break;
    }
    case kHasAll:
      if (has_all) throw WireError("has_all twice");
      has_all = c.flag();
      break;
    case kDone: done = true; break;
    default: throw WireError("an unknown frame");
  }
  c.finish();
}

}  // namespace shardmeter::results::wire
