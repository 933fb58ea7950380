#include "search/result.hpp"

namespace shardmeter::search {

std::uint64_t SearchCounts::rejected() const noexcept {
  std::uint64_t n = 0;
  for (const std::uint64_t r : rejected_by_reason) n += r;
  return n;
}

std::vector<std::pair<std::string, std::uint64_t>> SearchCounts::rejections() const {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (std::size_t i = 0; i < rejected_by_reason.size(); ++i)
    if (rejected_by_reason[i] > 0) out.emplace_back(reason_names[i], rejected_by_reason[i]);
  return out;
}

void SearchCounts::add(const SearchCounts& other) {
  for (std::uint64_t SearchCounts::*count : {&SearchCounts::visited, &SearchCounts::estimated,
                                             &SearchCounts::memory_bound, &SearchCounts::feasible, &SearchCounts::pruned,
                                             &SearchCounts::bound_pruned})
    this->*count += other.*count;
  if (rejected_by_reason.size() < other.rejected_by_reason.size())
    rejected_by_reason.resize(other.rejected_by_reason.size(), 0);
  for (std::size_t i = 0; i < other.rejected_by_reason.size(); ++i) rejected_by_reason[i] += other.rejected_by_reason[i];
  estimated_counts = estimated_counts || other.estimated_counts;
}

}  // namespace shardmeter::search
