#include "results/export/framework.hpp"

#include <array>

namespace shardmeter::results {

namespace {

// torchtitan (both targets) runs FSDP2; Megatron-LM is Megatron-Core with Transformer Engine; DeepSpeed its own ZeRO;
// torchrun launches whatever training script the user has, so its plans keep the scenario's stack.
constexpr std::array<Framework, 5> kFrameworks = {{
    {"torchtitan", ExportFormat::torchtitan, model::Stack::torch_fsdp2},
    {"torchtitan-py", ExportFormat::torchtitan_py, model::Stack::torch_fsdp2, false},
    {"megatron", ExportFormat::megatron, model::Stack::megatron_te},
    {"deepspeed", ExportFormat::deepspeed, model::Stack::deepspeed},
    {"torchrun", ExportFormat::torchrun, std::nullopt},
}};

}  // namespace

std::span<const Framework> frameworks() noexcept { return kFrameworks; }

const Framework* find_framework(std::string_view name) noexcept {
  for (const Framework& f : kFrameworks)
    if (f.name == name) return &f;
  return nullptr;
}

std::string framework_names() {
  std::string out;
  for (const Framework& f : kFrameworks) out += (out.empty() ? "" : ", ") + std::string(f.name);
  return out;
}

std::string export_refusal(ExportFormat format, const Deployment& plan, const ExportSource& source) {
  try {
    export_plan(format, plan, source);
  } catch (const ExportError& e) {
    return e.feature();
  }
  return "";
}

std::string refusal_reason(std::string_view feature) {
  const std::size_t colon = feature.find(':');
  std::string_view head = feature.substr(0, colon);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  return std::string(head.empty() ? feature : head);
}

}  // namespace shardmeter::results
