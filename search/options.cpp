#include "search/options.hpp"

namespace shardmeter::search {

std::string_view to_string(Method method) noexcept {
  switch (method) {
    case Method::automatic: return "auto";
    case Method::exhaustive: return "exhaustive";
    case Method::anneal: return "anneal";
  }
  return "auto";
}

std::optional<Method> parse_method(std::string_view text) noexcept {
  if (text == "auto") return Method::automatic;
  if (text == "exhaustive") return Method::exhaustive;
  if (text == "anneal") return Method::anneal;
  return std::nullopt;
}

}  // namespace shardmeter::search
