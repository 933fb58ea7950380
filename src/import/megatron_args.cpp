#include "src/import/megatron_args.hpp"

#include <algorithm>
#include <cctype>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "src/import/launch_words.hpp"

namespace shardmeter::cli {

namespace {

// Flags without a value (store_true in arguments.py).
const std::set<std::string, std::less<>> kSwitches = {
    "--group-query-attention", "--swiglu", "--untie-embeddings-and-output-weights", "--disable-bias-linear",
    "--multi-latent-attention", "--moe-grouped-gemm", "--moe-router-enable-expert-bias", "--sequence-parallel",
    "--use-distributed-optimizer", "--use-megatron-fsdp", "--no-gradient-accumulation-fusion", "--overlap-grad-reduce",
    "--overlap-param-gather", "--tp-comm-overlap", "--bf16", "--fp16", "--overlap-moe-expert-parallel-comm",
    "--account-for-embedding-in-pipeline-split", "--account-for-loss-in-pipeline-split", "--fp8-param-gather",
    "--use-flash-attn", "--no-masked-softmax-fusion", "--no-bias-gelu-fusion", "--no-bias-dropout-fusion",
    "--no-bias-swiglu-fusion", "--no-rope-fusion", "--cross-entropy-loss-fusion", "--use-mcore-models",
    "--attention-softmax-in-fp32", "--mock-data", "--no-load-optim", "--no-load-rng", "--use-precision-aware-optimizer",
    "--grad-reduce-in-bf16", "--no-create-attention-mask-in-dataloader", "--log-throughput", "--moe-permute-fusion",
    "--use-checkpoint-args", "--no-save-optim", "--no-save-rng", "--apply-layernorm-1p", "--manual-gc",
    "--moe-router-pre-softmax", "--use-rotary-position-embeddings", "--no-position-embedding",
    "--untie-embeddings-and-output-weights", "--add-qkv-bias", "--qk-layernorm", "--log-timers-to-tensorboard",
    "--log-memory-to-tensorboard", "--log-validation-ppl-to-tensorboard", "--use-dist-ckpt", "--async-save",
    "--exit-on-missing-checkpoint", "--cpu-offloading", "--optimizer-cpu-offload", "--overlap-cpu-optimizer-d2h-h2d"};

// Flags that change nothing ShardMeter costs: skipped with their value. Prefixes end in '-'.
const std::vector<std::string_view> kSkipped = {
    "--data-", "--train-data-path", "--valid-data-path", "--test-data-path", "--split", "--tokenizer-", "--vocab-file",
    "--merge-file", "--lr", "--lr-", "--min-lr", "--weight-decay", "--start-weight-decay", "--end-weight-decay", "--clip-grad",
    "--adam-", "--sgd-momentum", "--init-method-std", "--seed", "--save", "--load", "--save-interval", "--eval-",
    "--log-", "--wandb-", "--tensorboard-", "--timing-log-", "--exit-", "--ckpt-", "--no-load-", "--no-save-",
    "--rotary-percent", "--rotary-seq-len-interpolation-factor",
    "--max-position-embeddings", "--make-vocab-size-divisible-by", "--attention-backend", "--transformer-impl",
    "--distributed-backend", "--num-workers", "--moe-router-load-balancing-type", "--moe-aux-loss-coeff",
    "--moe-z-loss-coeff", "--moe-router-dtype", "--moe-flex-dispatcher-backend", "--moe-router-topk-scaling-factor",
    "--moe-router-bias-update-rate", "--moe-router-num-groups", "--moe-router-group-topk", "--moe-input-jitter-eps",
    "--moe-token-drop-policy", "--moe-pad-expert-input-to-capacity", "--use-flash-attn", "--no-masked-softmax-fusion",
    "--no-bias-gelu-fusion", "--no-bias-dropout-fusion", "--no-bias-swiglu-fusion", "--no-rope-fusion",
    "--cross-entropy-loss-fusion", "--use-mcore-models", "--attention-softmax-in-fp32", "--mock-data",
    "--use-checkpoint-args", "--manual-gc", "--use-dist-ckpt", "--async-save", "--distributed-timeout-minutes",
    "--dataloader-type", "--log-throughput", "--moe-grouped-gemm", "--moe-router-enable-expert-bias",
    "--moe-permute-fusion", "--no-gradient-accumulation-fusion", "--no-create-attention-mask-in-dataloader",
    "--fp8-amax-history-len", "--fp8-amax-compute-algo", "--fp8-margin", "--fp8-interval", "--apply-layernorm-1p",
    "--use-precision-aware-optimizer", "--main-grads-dtype", "--main-params-dtype", "--calculate-per-token-loss",
    "--micro-batch-size-for-eval", "--overlap-param-gather-with-optimizer-step", "--bucket-size",
    "--ddp-bucket-size", "--check-for-nan-in-loss-and-grad", "--empty-unused-memory-level", "--profile",
    "--use-pytorch-profiler", "--profile-step-start", "--profile-step-end", "--hidden-dropout-unused"};

// Integers beyond this are refused before any arithmetic (no product of two of them overflows).
constexpr long long kMaxInteger = 1'000'000'000'000;

bool skipped(std::string_view flag) {
  for (std::string_view s : kSkipped) {
    if (s.back() == '-' ? flag.rfind(s, 0) == 0 : flag == s) return true;
  }
  return false;
}

struct Flag {
  std::string value;
  SourceLocation at;
  std::string said;
};

class Args {
public:
  Args(std::map<std::string, Flag, std::less<>> flags, std::string file) : flags_(std::move(flags)), file_(std::move(file)) {}
  bool has(std::string_view f) const {
    asked_.insert(std::string(f));
    return flags_.count(f) != 0;
  }
  // Every flag given was read by the mapping or changes nothing ShardMeter costs; else an error at it.
  void check_all_read() const {
    for (const auto& [name, flag] : flags_)
      if (asked_.count(name) == 0 && !skipped(name))
        throw ScenarioError(flag.at, flag.said, "", "is a Megatron-LM flag the import does not map: it is neither a "
                                                    "model, layout, batch or precision setting ShardMeter costs nor "
                                                    "known to leave the cost unchanged (docs/import.md)");
  }
  const Flag& get(std::string_view f) const { return flags_.find(f)->second; }
  [[noreturn]] void fail(std::string_view f, const std::string& problem) const {
    const Flag& x = get(f);
    throw ScenarioError(x.at, x.said, "", problem);
  }
  // A value the import reads must be written out: a shell variable there is invisible to it. (Skipped flags, such
  // as --data-path $DATA, may hold variables.)
  const Flag& value_of(std::string_view f) const {
    const Flag& x = get(f);
    if (x.value.find('$') != std::string::npos)
      fail(f, "expands a shell variable the import cannot see: write the value itself");
    return x;
  }
  long long integer(std::string_view f) const {
    const Flag& x = value_of(f);
    try {
      std::size_t used = 0;
      const long long v = std::stoll(x.value, &used);
      if (used == x.value.size() && v >= 0 && v <= kMaxInteger) return v;
    } catch (const std::exception&) {
    }
    fail(f, "does not give a whole number from 0 to 10^12");
  }
  // A degree or count that divides something: 1 or more.
  long long positive(std::string_view f, long long fallback) const {
    if (!has(f)) return fallback;
    const long long v = integer(f);
    if (v < 1 || v > (1 << 20)) fail(f, "is not from 1 to 2^20");
    return v;
  }
  double number(std::string_view f) const {
    const Flag& x = value_of(f);
    try {
      std::size_t used = 0;
      const double v = std::stod(x.value, &used);
      if (used == x.value.size() && v >= 0) return v;
    } catch (const std::exception&) {
    }
    fail(f, "does not give a number");
  }
  std::string text(std::string_view f) const { return value_of(f).value; }
  SourceLocation at(std::string_view f) const { return has(f) ? get(f).at : SourceLocation{file_, 0, 0}; }
  std::string said(std::string_view f) const { return has(f) ? get(f).said : std::string(f) + " not given (default)"; }

private:
  std::map<std::string, Flag, std::less<>> flags_;
  std::string file_;
  mutable std::set<std::string, std::less<>> asked_;
};

bool launcher_word(const std::string& w) {
  return w.size() > 3 && w.compare(w.size() - 3, 3, ".py") == 0;
}

// Reads the flags after the last word ending in .py (a launch line: torchrun and its options come before the
// script), skipping bash around an argument array (`export X=Y`, `NAME=(`, `)`).
std::map<std::string, Flag, std::less<>> read_flags(const LaunchText& launch) {
  std::size_t start = 0;
  for (std::size_t i = 0; i < launch.words.size(); ++i)
    if (launcher_word(launch.words[i].text)) start = i + 1;
  std::map<std::string, Flag, std::less<>> flags;
  const auto& w = launch.words;
  for (std::size_t i = start; i < w.size(); ++i) {
    const std::string& t = w[i].text;
    if (t == "export" && i + 1 < w.size()) {
      ++i;
      continue;
    }
    if (t == "(" || t == ")" || (t.find('=') != std::string::npos && t.rfind("--", 0) != 0 && t.back() == '('))
      continue;
    if (t.find("${") != std::string::npos || t.find('$') == 0)
      throw ScenarioError(w[i].at, t, "", "expands a shell variable the import cannot see: give the file with the "
                                          "arguments themselves");
    if (t.rfind("--", 0) != 0)
      throw ScenarioError(w[i].at, t, "", "is not a Megatron-LM flag (--name) or the value of one");
    std::string name = t, value;
    const std::size_t flag_word = i;
    bool has_value = false;
    if (const auto eq = t.find('='); eq != std::string::npos) {
      name = t.substr(0, eq);
      value = t.substr(eq + 1);
      has_value = true;
    } else if (kSwitches.count(t) == 0) {
      // Every word up to the next flag is a value (nargs='*' flags: --recompute-modules core_attn moe_act).
      while (i + 1 < w.size() && w[i + 1].text.rfind("--", 0) != 0 && w[i + 1].text != ")") {
        value += (has_value ? " " : "") + w[++i].text;
        has_value = true;
      }
    }
    const std::string said = has_value ? name + " " + value : name;
    if (kSwitches.count(name) != 0 && has_value)
      throw ScenarioError(w[flag_word].at, said, "", "gives a value to a switch");
    const auto [it, fresh] = flags.emplace(name, Flag{value, w[flag_word].at, said});
    if (!fresh) throw ScenarioError(w[flag_word].at, said, "", "is given twice (Megatron-LM would keep the last)");
  }
  return flags;
}

// --moe-layer-freq as Megatron's pattern expression (A:244-252): terms joined by '+', each [d, d, ...] or a
// parenthesised expression, optionally *N. Returns the 0/1 list.
std::vector<int> moe_pattern(const std::string& text, std::size_t& i, const Args& args, int depth);
std::vector<int> moe_term(const std::string& text, std::size_t& i, const Args& args, int depth) {
  if (depth > 16) args.fail("--moe-layer-freq", "nests parentheses deeper than 16");
  std::vector<int> out;
  if (i < text.size() && text[i] == '[') {
    ++i;
    while (i < text.size() && text[i] != ']') {
      if (text[i] == '0' || text[i] == '1') out.push_back(text[i] - '0');
      else if (text[i] != ',' && text[i] != ' ') args.fail("--moe-layer-freq", "is not a pattern of 0s and 1s");
      ++i;
    }
    ++i;
  } else if (i < text.size() && text[i] == '(') {
    ++i;
    out = moe_pattern(text, i, args, depth + 1);
    if (i >= text.size() || text[i] != ')') args.fail("--moe-layer-freq", "has an unclosed parenthesis");
    ++i;
  } else {
    args.fail("--moe-layer-freq", "is not a number or a [..] pattern");
  }
  if (i < text.size() && text[i] == '*') {
    ++i;
    std::size_t used = 0;
    int n = 0;
    try {
      n = std::stoi(text.substr(i), &used);
    } catch (const std::exception&) {
      args.fail("--moe-layer-freq", "has a * without a count");
    }
    if (n < 0 || out.size() * static_cast<std::size_t>(n) > 1'000'000)
      args.fail("--moe-layer-freq", "repeats a term into more than a million blocks");
    i += used;
    std::vector<int> repeated;
    for (int k = 0; k < n; ++k) repeated.insert(repeated.end(), out.begin(), out.end());
    out = repeated;
  }
  return out;
}
std::vector<int> moe_pattern(const std::string& text, std::size_t& i, const Args& args, int depth) {
  std::vector<int> out = moe_term(text, i, args, depth);
  while (i < text.size() && text[i] == '+') {
    ++i;
    const std::vector<int> more = moe_term(text, i, args, depth);
    if (out.size() + more.size() > 1'000'000) args.fail("--moe-layer-freq", "has more than a million blocks");
    out.insert(out.end(), more.begin(), more.end());
  }
  return out;
}

// --pipeline-model-parallel-layout (A:894-918; TC:104-127): one '|'-separated entry per virtual stage, virtual stage
// i on rank i % pp, each entry E (the embedding), t or t*N (N blocks), L (the loss). ShardMeter states a split as the
// balanced split of layers + e + h over the virtual stages with the embedding weighing e layers on the first and the
// head h on the last (docs/model.md §5.4, what the export writes): the layout must be one of those.
struct PipelineLayout {
  long long interleave = 1, embedding = 0, head = 0;
};
PipelineLayout read_layout(const Args& a, long long layers, long long pp) {
  const std::string text = a.text("--pipeline-model-parallel-layout");
  std::vector<long long> blocks;
  std::size_t start = 0;
  bool embedding_first = false, loss_last = false;
  while (true) {
    const std::size_t bar = text.find('|', start);
    std::string entry = text.substr(start, bar == std::string::npos ? std::string::npos : bar - start);
    const bool first = blocks.empty(), last = bar == std::string::npos;
    if (!entry.empty() && entry.front() == 'E') {
      if (!first) a.fail("--pipeline-model-parallel-layout", "places the embedding E on a stage other than the first");
      embedding_first = true;
      entry.erase(0, 1);
    }
    if (!entry.empty() && entry.back() == 'L') {
      if (!last) a.fail("--pipeline-model-parallel-layout", "places the loss L on a stage other than the last");
      loss_last = true;
      entry.pop_back();
    }
    long long n = 0;
    if (entry == "t") {
      n = 1;
    } else if (entry.rfind("t*", 0) == 0) {
      try {
        std::size_t used = 0;
        n = std::stoll(entry.substr(2), &used);
        if (used != entry.size() - 2 || n < 0) n = -1;
      } catch (const std::exception&) {
        n = -1;
      }
    } else if (!entry.empty()) {
      n = -1;
    }
    if (n < 0)
      a.fail("--pipeline-model-parallel-layout", "has the entry '" + entry + "': the import reads E, t, t*N and L only");
    blocks.push_back(n);
    if (last) break;
    start = bar + 1;
  }
  if (!embedding_first || !loss_last)
    a.fail("--pipeline-model-parallel-layout", "does not start with E and end with L");
  const long long stages = static_cast<long long>(blocks.size());
  if (pp <= 0 || stages % pp != 0)
    a.fail("--pipeline-model-parallel-layout", fmt::format("has {} stages, not a multiple of pp {}", stages, pp));
  // The embedding and head weights (0 to 8 layers each) whose balanced split gives these stages.
  for (long long e = 0; e <= 8; ++e)
    for (long long h = 0; h <= 8; ++h) {
      const long long effective = layers + e + h, base = effective / stages, extra = effective % stages;
      bool same = true;
      for (long long i = 0; i < stages && same; ++i) {
        long long b = base + (i < extra ? 1 : 0);
        if (i == 0) b -= e;
        if (i == stages - 1) b -= h;
        same = b == blocks[static_cast<std::size_t>(i)];
      }
      if (same) return PipelineLayout{stages / pp, e, h};
    }
  a.fail("--pipeline-model-parallel-layout", "is not the balanced split of the layers with the embedding and the loss "
                                             "weighing up to 8 layers each, the splits plan.pp_embedding_layers and "
                                             "plan.pp_head_layers express");
}

}  // namespace

ImportedScenario import_megatron(const std::string& text, const std::string& file) {
  const LaunchText launch = split_launch_text(text, file);
  const Args a(read_flags(launch), file);
  ImportedScenario out;
  out.framework = "megatron";
  out.source = file;
  out.has_model = true;
  const auto set = [&](const std::string& key, const std::string& value, std::string_view flag) {
    out.set(key, value, a.at(flag), a.said(flag));
  };
  const auto set_int = [&](const std::string& key, long long value, std::string_view flag) {
    set(key, std::to_string(value), flag);
  };
  const auto require = [&](std::string_view flag, const std::string& why) {
    if (!a.has(flag))
      throw ScenarioError(SourceLocation{file, 0, 0}, std::string(flag), "",
                          "is required: " + why);
  };

  // ---- the model -------------------------------------------------------------------------------------------------
  require("--num-layers", "it sets model.layers");
  require("--hidden-size", "it sets model.hidden");
  require("--num-attention-heads", "it sets model.heads");
  require("--seq-length", "it sets model.seq_len");
  const long long layers = a.integer("--num-layers"), hidden = a.integer("--hidden-size");
  const long long heads = a.integer("--num-attention-heads");
  set_int("model.layers", layers, "--num-layers");
  set_int("model.hidden", hidden, "--hidden-size");
  set_int("model.heads", heads, "--num-attention-heads");
  const bool mla = a.has("--multi-latent-attention");
  if (mla && a.has("--group-query-attention"))
    a.fail("--group-query-attention", "is not allowed with --multi-latent-attention (A:1892-1893)");
  if (a.has("--num-query-groups") && !a.has("--group-query-attention"))
    a.fail("--num-query-groups", "has no effect without --group-query-attention: Megatron keeps multi-head attention");
  if (a.has("--group-query-attention")) {
    require("--num-query-groups", "--group-query-attention needs it");
    set_int("model.kv_heads", a.integer("--num-query-groups"), "--num-query-groups");
  } else {
    set_int("model.kv_heads", heads, "--num-attention-heads");
  }
  if (mla) {
    // Megatron's MLA defaults (A:3380-3392): q_lora_rank None, kv_lora_rank 32, qk_head_dim 128, qk_pos_emb 64, v 128.
    set_int("model.head_dim", a.has("--qk-head-dim") ? a.integer("--qk-head-dim") : 128, "--qk-head-dim");
    set_int("model.q_lora_rank", a.has("--q-lora-rank") ? a.integer("--q-lora-rank") : 0, "--q-lora-rank");
    set_int("model.kv_lora_rank", a.has("--kv-lora-rank") ? a.integer("--kv-lora-rank") : 32, "--kv-lora-rank");
    set_int("model.rope_head_dim", a.has("--qk-pos-emb-head-dim") ? a.integer("--qk-pos-emb-head-dim") : 64,
            "--qk-pos-emb-head-dim");
    set_int("model.v_head_dim", a.has("--v-head-dim") ? a.integer("--v-head-dim") : 128, "--v-head-dim");
  } else {
    for (std::string_view f : {"--q-lora-rank", "--kv-lora-rank", "--qk-head-dim", "--qk-pos-emb-head-dim", "--v-head-dim"})
      if (a.has(f)) a.fail(f, "has no effect without --multi-latent-attention");
    if (a.has("--kv-channels")) {
      set_int("model.head_dim", a.integer("--kv-channels"), "--kv-channels");
    } else {
      if (heads == 0 || hidden % heads != 0)
        a.fail("--num-attention-heads", "does not divide --hidden-size and no --kv-channels is given");
      set_int("model.head_dim", hidden / heads, "--num-attention-heads");
    }
  }
  const bool swiglu = a.has("--swiglu");
  // Megatron's default FFN width: 4h, or with --swiglu 4h x 2/3 rounded to a multiple of 64 (TC: ffn_hidden_size).
  set_int("model.ffn_hidden", a.has("--ffn-hidden-size") ? a.integer("--ffn-hidden-size")
                                 : swiglu ? (4 * hidden * 2 / 3 + 63) / 64 * 64 : 4 * hidden,
          "--ffn-hidden-size");
  set("model.ffn_type", swiglu ? "swiglu" : "gelu", "--swiglu");
  set_int("model.seq_len", a.integer("--seq-length"), "--seq-length");
  if (a.has("--vocab-size")) {
    set_int("model.vocab", a.integer("--vocab-size"), "--vocab-size");
  } else {
    // The export writes the vocabulary on a comment line ("# vocabulary: N tokens, set by your tokenizer arguments").
    bool found = false;
    for (const auto& [at, comment] : launch.comments) {
      const auto pos = comment.find("vocabulary: ");
      if (pos == std::string::npos) continue;
      const std::string rest = comment.substr(pos + 12);
      std::size_t used = 0;
      try {
        const long long v = std::stoll(rest, &used);
        if (rest.compare(used, 7, " tokens") == 0) {
          out.set("model.vocab", std::to_string(v), at, "# vocabulary: " + std::to_string(v) + " tokens");
          found = true;
        }
      } catch (const std::exception&) {
      }
    }
    if (!found)
      out.notes.push_back("the vocabulary comes from the tokenizer, not an argument: model.vocab is the base "
                          "scenario's (or give --vocab-size, or --set model.vocab=N)");
  }
  const std::string pos = a.has("--position-embedding-type") ? a.text("--position-embedding-type") : "learned_absolute";
  if (pos != "rope" && pos != "learned_absolute")
    a.fail("--position-embedding-type", "is not rope or learned_absolute: ShardMeter costs those two and alibi, and "
                                        "yarn / mrope need keys it does not hold");
  set("model.position_embedding", pos == "rope" ? "rope" : "learned", "--position-embedding-type");
  // Plain RoPE and unclamped experts: gpt-oss's YaRN and clamp need flags the export refuses to write (and the
  // import to read: --position-embedding-type yarn is refused above).
  set("model.yarn_factor", "0", "--position-embedding-type");
  set("model.expert_activation_clamp", "0", "--position-embedding-type");
  if (a.has("--window-size")) {
    const std::string w = a.text("--window-size");
    const auto comma = w.find(',');
    if (comma == std::string::npos || w.substr(comma + 1) != "0")
      a.fail("--window-size", "is not LEFT,0: ShardMeter's sliding window is causal");
    long long left = 0;
    try {
      left = std::stoll(w.substr(0, comma));
    } catch (const std::exception&) {
      a.fail("--window-size", "is not LEFT,0");
    }
    set_int("model.attention_window", left + 1, "--window-size");
    set_int("model.full_attention_every", a.has("--window-attn-skip-freq") ? a.integer("--window-attn-skip-freq") : 0,
            "--window-attn-skip-freq");
  } else {
    set_int("model.attention_window", 0, "--window-size");
    if (a.has("--window-attn-skip-freq")) a.fail("--window-attn-skip-freq", "has no effect without --window-size");
  }
  const std::string norm = a.has("--normalization") ? a.text("--normalization") : "LayerNorm";
  if (norm != "LayerNorm" && norm != "RMSNorm") a.fail("--normalization", "is not LayerNorm or RMSNorm");
  set("model.norm", norm == "RMSNorm" ? "rmsnorm" : "layernorm", "--normalization");
  // Numerics no cost depends on, read so the scenario is the model Megatron trains (A: --rotary-base default
  // 10000, --norm-epsilon default 1e-5).
  const auto real = [&](std::string_view f, double fallback, double lo, double hi) {
    if (!a.has(f)) return fmt::format("{}", fallback);
    const double v = a.number(f);
    if (!(v >= lo && v <= hi)) a.fail(f, fmt::format("is not between {} and {}", lo, hi));
    return fmt::format("{}", v);
  };
  set("model.rope_theta", real("--rotary-base", 10000, 1, 1e12), "--rotary-base");
  set("model.norm_eps", real("--norm-epsilon", 1e-5, 1e-12, 0.1), "--norm-epsilon");
  set("model.tied_embeddings", a.has("--untie-embeddings-and-output-weights") ? "false" : "true",
      "--untie-embeddings-and-output-weights");
  set("model.bias", a.has("--disable-bias-linear") ? "false" : "true", "--disable-bias-linear");
  // Dropout: Megatron's defaults are 0.1 for both (A: --attention-dropout, --hidden-dropout).
  const bool dropout = (a.has("--attention-dropout") ? a.number("--attention-dropout") : 0.1) > 0 ||
                       (a.has("--hidden-dropout") ? a.number("--hidden-dropout") : 0.1) > 0;
  set("model.dropout", dropout ? "true" : "false", a.has("--hidden-dropout") ? "--hidden-dropout" : "--attention-dropout");
  for (std::string_view f : {"--add-qkv-bias", "--qk-layernorm", "--apply-layernorm-1p", "--no-position-embedding"})
    if (a.has(f)) a.fail(f, "changes the model in a way no ShardMeter model key expresses");

  // ---- mixture of experts --------------------------------------------------------------------------------------
  const long long experts = a.has("--num-experts") ? a.integer("--num-experts") : 0;
  set_int("model.experts", experts, "--num-experts");
  if (experts > 0) {
    set_int("model.top_k", a.has("--moe-router-topk") ? a.integer("--moe-router-topk") : 2, "--moe-router-topk");
    if (a.has("--moe-ffn-hidden-size"))
      set_int("model.expert_ffn_hidden", a.integer("--moe-ffn-hidden-size"), "--moe-ffn-hidden-size");
    if (a.has("--moe-shared-expert-intermediate-size")) {
      set_int("model.shared_experts", 1, "--moe-shared-expert-intermediate-size");
      set_int("model.shared_expert_ffn_hidden", a.integer("--moe-shared-expert-intermediate-size"),
              "--moe-shared-expert-intermediate-size");
    } else {
      set_int("model.shared_experts", 0, "--moe-shared-expert-intermediate-size");
    }
    long long dense = 0, every = 1;
    if (a.has("--moe-layer-freq")) {
      const std::string f = a.text("--moe-layer-freq");
      if (!f.empty() && std::all_of(f.begin(), f.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        every = a.integer("--moe-layer-freq");
      } else {
        std::size_t i = 0;
        const std::vector<int> p = moe_pattern(f, i, a, 0);
        if (i != f.size()) a.fail("--moe-layer-freq", "has text after the pattern");
        if (static_cast<long long>(p.size()) != layers)
          a.fail("--moe-layer-freq", fmt::format("lists {} blocks, not --num-layers {}", p.size(), layers));
        const auto first = std::find(p.begin(), p.end(), 1);
        if (first == p.end()) a.fail("--moe-layer-freq", "has no MoE block");
        dense = first - p.begin();
        const auto second = std::find(first + 1, p.end(), 1);
        every = second == p.end() ? std::max<long long>(1, layers - dense) : second - first;
        for (long long i2 = 0; i2 < layers; ++i2)
          if (p[static_cast<std::size_t>(i2)] != (i2 >= dense && (i2 - dense) % every == 0 ? 1 : 0))
            a.fail("--moe-layer-freq", "is not the first blocks dense and then every n-th block MoE, the pattern "
                                       "model.dense_layers and model.moe_every express");
      }
    }
    set_int("model.dense_layers", dense, "--moe-layer-freq");
    set_int("model.moe_every", every, "--moe-layer-freq");
    const std::string score = a.has("--moe-router-score-function") ? a.text("--moe-router-score-function") : "softmax";
    if (score != "softmax" && score != "sigmoid") a.fail("--moe-router-score-function", "is not softmax or sigmoid");
    set("model.router", score, "--moe-router-score-function");
    set("model.capacity_factor", a.has("--moe-expert-capacity-factor") ? a.text("--moe-expert-capacity-factor") : "0",
        "--moe-expert-capacity-factor");
    set_int("model.mtp_layers", a.has("--mtp-num-layers") ? a.integer("--mtp-num-layers") : 0, "--mtp-num-layers");
  } else {
    for (std::string_view f : {"--moe-router-topk", "--moe-ffn-hidden-size", "--moe-shared-expert-intermediate-size",
                               "--moe-layer-freq", "--expert-model-parallel-size", "--moe-expert-capacity-factor",
                               "--moe-token-dispatcher-type", "--expert-tensor-parallel-size",
                               "--overlap-moe-expert-parallel-comm", "--moe-router-score-function"})
      if (a.has(f)) a.fail(f, "has no effect without --num-experts");
    set_int("model.mtp_layers", a.has("--mtp-num-layers") ? a.integer("--mtp-num-layers") : 0, "--mtp-num-layers");
  }

  // ---- the layout ------------------------------------------------------------------------------------------------
  const long long tp = a.positive("--tensor-model-parallel-size", 1);
  const long long pp = a.positive("--pipeline-model-parallel-size", 1);
  set_int("plan.tp", tp, "--tensor-model-parallel-size");
  set_int("plan.pp", pp, "--pipeline-model-parallel-size");
  set_int("plan.cp", a.has("--context-parallel-size") ? a.integer("--context-parallel-size") : 1, "--context-parallel-size");
  long long interleave = 1;
  if (a.has("--num-virtual-stages-per-pipeline-rank")) interleave = a.integer("--num-virtual-stages-per-pipeline-rank");
  if (a.has("--num-layers-per-virtual-pipeline-stage")) {
    const long long per = a.positive("--num-layers-per-virtual-pipeline-stage", 1);
    if (layers % (pp * per) != 0)
      a.fail("--num-layers-per-virtual-pipeline-stage", "does not divide the layers per pipeline rank");
    interleave = layers / pp / per;
  }
  long long layout_embedding = -1, layout_head = -1;
  if (a.has("--pipeline-model-parallel-layout")) {
    const PipelineLayout layout = read_layout(a, layers, pp);
    interleave = layout.interleave;
    layout_embedding = layout.embedding;
    layout_head = layout.head;
  }
  set_int("plan.interleave", interleave,
          a.has("--pipeline-model-parallel-layout")          ? "--pipeline-model-parallel-layout"
          : a.has("--num-layers-per-virtual-pipeline-stage") ? "--num-layers-per-virtual-pipeline-stage"
                                                             : "--num-virtual-stages-per-pipeline-rank");
  set_int("plan.pp_first_stage_layers",
          a.has("--decoder-first-pipeline-num-layers") ? a.integer("--decoder-first-pipeline-num-layers") : 0,
          "--decoder-first-pipeline-num-layers");
  set_int("plan.pp_last_stage_layers",
          a.has("--decoder-last-pipeline-num-layers") ? a.integer("--decoder-last-pipeline-num-layers") : 0,
          "--decoder-last-pipeline-num-layers");
  if (layout_embedding >= 0) {
    set_int("plan.pp_embedding_layers", layout_embedding, "--pipeline-model-parallel-layout");
    set_int("plan.pp_head_layers", layout_head, "--pipeline-model-parallel-layout");
  } else {
    set_int("plan.pp_embedding_layers", a.has("--account-for-embedding-in-pipeline-split") ? 1 : 0,
            "--account-for-embedding-in-pipeline-split");
    set_int("plan.pp_head_layers", a.has("--account-for-loss-in-pipeline-split") ? 1 : 0,
            "--account-for-loss-in-pipeline-split");
  }
  set("plan.sequence_parallel", a.has("--sequence-parallel") ? "true" : "false", "--sequence-parallel");
  if (experts > 0) {
    set_int("plan.ep", a.has("--expert-model-parallel-size") ? a.integer("--expert-model-parallel-size") : 1,
            "--expert-model-parallel-size");
    // ETP defaults to TP (A:569-570).
    set_int("plan.etp", a.has("--expert-tensor-parallel-size") ? a.integer("--expert-tensor-parallel-size") : tp,
            "--expert-tensor-parallel-size");
    const std::string d = a.has("--moe-token-dispatcher-type") ? a.text("--moe-token-dispatcher-type") : "allgather";
    if (d == "alltoall") {
      set("plan.ep_dispatcher", "alltoall", "--moe-token-dispatcher-type");
    } else if (d == "flex") {
      if (!a.has("--moe-flex-dispatcher-backend") || a.text("--moe-flex-dispatcher-backend") != "deepep")
        a.fail("--moe-token-dispatcher-type", "flex without --moe-flex-dispatcher-backend deepep: ShardMeter costs "
                                              "NCCL all-to-all and DeepEP dispatch");
      set("plan.ep_dispatcher", "deepep", "--moe-flex-dispatcher-backend");
    } else {
      throw ScenarioError(a.at("--moe-token-dispatcher-type"), a.said("--moe-token-dispatcher-type"), "",
                          "is the " + d + " dispatcher (Megatron's default is allgather): ShardMeter costs alltoall "
                          "and flex with DeepEP only");
    }
    set("plan.ep_overlap", a.has("--overlap-moe-expert-parallel-comm") ? "true" : "false",
        "--overlap-moe-expert-parallel-comm");
  } else {
    set_int("plan.ep", 1, "--expert-model-parallel-size");
    set_int("plan.etp", 1, "--expert-tensor-parallel-size");
  }

  // ---- batch -----------------------------------------------------------------------------------------------------
  require("--global-batch-size", "it sets training.global_batch (Megatron's default, micro x data-parallel ranks, "
                                 "is not assumed)");
  set_int("training.global_batch", a.integer("--global-batch-size"), "--global-batch-size");
  set_int("training.micro_batch", a.has("--micro-batch-size") ? a.integer("--micro-batch-size") : 1, "--micro-batch-size");
  if (a.has("--train-iters")) {
    set("training.tokens", fmt::format("{:.17g}", static_cast<double>(a.integer("--train-iters")) *
                                                        static_cast<double>(a.integer("--global-batch-size")) *
                                                        static_cast<double>(a.integer("--seq-length"))),
        "--train-iters");
  } else if (a.has("--train-samples")) {
    set("training.tokens", fmt::format("{:.17g}", static_cast<double>(a.integer("--train-samples")) *
                                                        static_cast<double>(a.integer("--seq-length"))),
        "--train-samples");
  } else {
    out.notes.push_back("no --train-iters or --train-samples: training.tokens is the base scenario's (or --tokens)");
  }
  // The warm-up (A: --lr-warmup-iters default 0, or --lr-warmup-samples, or --lr-warmup-fraction of the run).
  const double step_tokens =
      static_cast<double>(a.integer("--global-batch-size")) * static_cast<double>(a.integer("--seq-length"));
  if (a.has("--lr-warmup-fraction")) {
    const double fraction = a.number("--lr-warmup-fraction");
    if (fraction > 1) a.fail("--lr-warmup-fraction", "is above 1");
    const double run = a.has("--train-iters") ? static_cast<double>(a.integer("--train-iters")) * step_tokens
                       : a.has("--train-samples")
                           ? static_cast<double>(a.integer("--train-samples")) * static_cast<double>(a.integer("--seq-length"))
                           : -1;
    if (run < 0) a.fail("--lr-warmup-fraction", "is a fraction of a run length neither --train-iters nor --train-samples gives");
    set("training.warmup_tokens", fmt::format("{:.17g}", fraction * run), "--lr-warmup-fraction");
  } else if (a.has("--lr-warmup-samples")) {
    set("training.warmup_tokens", fmt::format("{:.17g}", static_cast<double>(a.integer("--lr-warmup-samples")) *
                                                              static_cast<double>(a.integer("--seq-length"))),
        "--lr-warmup-samples");
  } else {
    const double iters = a.has("--lr-warmup-iters") ? static_cast<double>(a.integer("--lr-warmup-iters")) : 0;
    set("training.warmup_tokens", fmt::format("{:.17g}", iters * step_tokens), "--lr-warmup-iters");
  }

  // ---- memory: recompute and sharding ------------------------------------------------------------------------------
  const std::string granularity = a.has("--recompute-granularity") ? a.text("--recompute-granularity") : "";
  std::string recompute = "none", moe_recompute = "none";
  long long recompute_layers = 0;
  if (granularity == "selective") {
    recompute = "selective";
    if (a.has("--recompute-modules")) {
      recompute = "none";
      // The modules are one word each; read_flags kept only the first: the rest follow as their own words.
      std::string modules = a.text("--recompute-modules");
      if (modules.find("core_attn") != std::string::npos) recompute = "selective";
      if (modules.find("moe_act") != std::string::npos) moe_recompute = "activation";
      else if (modules.find("moe") != std::string::npos) moe_recompute = "layer";
      for (std::string_view other : {"mlp", "layernorm", "shared_experts", "mla_up_proj"})
        if (modules.find(other) != std::string::npos)
          a.fail("--recompute-modules", "recomputes " + std::string(other) + ", which no plan.recompute or "
                                        "plan.moe_recompute value costs");
    }
  } else if (granularity == "full") {
    recompute = "full";
    const std::string method = a.has("--recompute-method") ? a.text("--recompute-method") : "";
    const long long n = a.has("--recompute-num-layers") ? a.integer("--recompute-num-layers") : 1;
    if (method == "uniform") {
      if (n != 1)
        a.fail("--recompute-num-layers", "groups blocks for uniform recompute; ShardMeter's full recompute "
                                         "checkpoints each block (uniform with 1)");
    } else if (method == "block") {
      recompute_layers = n * interleave;
    } else {
      throw ScenarioError(a.at("--recompute-method"), a.said("--recompute-method"), "",
                          "is not uniform or block (full granularity needs one, A:529-537)");
    }
  } else if (!granularity.empty()) {
    a.fail("--recompute-granularity", "is not full or selective");
  }
  set("plan.recompute", recompute, "--recompute-granularity");
  set_int("plan.recompute_layers", recompute_layers, "--recompute-num-layers");
  if (experts > 0) set("plan.moe_recompute", moe_recompute, "--recompute-modules");
  std::string sharding = "none";
  const bool distributed_optimizer = a.has("--use-distributed-optimizer");
  if (a.has("--use-megatron-fsdp")) {
    if (!distributed_optimizer)
      a.fail("--use-megatron-fsdp", "needs --use-distributed-optimizer (A:1620-1621)");
    const std::string s = a.has("--data-parallel-sharding-strategy") ? a.text("--data-parallel-sharding-strategy")
                                                                      : "optim_grads_params";
    if (s == "optim_grads_params") sharding = "fsdp";
    else if (s == "optim_grads") sharding = "zero2";
    else if (s == "optim") sharding = "zero1";
    else a.fail("--data-parallel-sharding-strategy", "is not optim, optim_grads or optim_grads_params");
    set("plan.sharding", sharding, "--use-megatron-fsdp");
    set("plan.reshard_after_forward", "true", "--use-megatron-fsdp");
  } else {
    if (a.has("--data-parallel-sharding-strategy"))
      a.fail("--data-parallel-sharding-strategy", "has no effect without --use-megatron-fsdp");
    sharding = distributed_optimizer ? "zero1" : "none";  // (Megatron-FSDP needs it too, A:1620-1621)
    set("plan.sharding", sharding, "--use-distributed-optimizer");
  }
  set("plan.overlap_grad_reduce", a.has("--overlap-grad-reduce") ? "true" : "false", "--overlap-grad-reduce");
  set("plan.overlap_param_gather", a.has("--overlap-param-gather") ? "true" : "false", "--overlap-param-gather");
  set("plan.tp_comm_overlap", a.has("--tp-comm-overlap") ? "true" : "false", "--tp-comm-overlap");
  // ---- host-memory offload (docs/model.md §7.15, §7.16; what export --format megatron writes) ---------------------
  // A: `if args.cpu_offloading_num_layers > 0: args.cpu_offloading = True`; the count defaults to 0.
  const long long offload_layers =
      a.has("--cpu-offloading-num-layers") ? a.integer("--cpu-offloading-num-layers") : 0;
  if (a.has("--cpu-offloading") && offload_layers == 0)
    a.fail("--cpu-offloading", "turns CPU offloading on with --cpu-offloading-num-layers 0 (its default): give the "
                               "number of blocks whose activations are offloaded (plan.activation_offload_layers)");
  set_int("plan.activation_offload_layers", offload_layers, "--cpu-offloading-num-layers");
  double offload_fraction = 0;
  if (a.has("--optimizer-cpu-offload")) {
    // A: --optimizer-offload-fraction defaults to 1.0; the offload asserts --use-precision-aware-optimizer.
    offload_fraction = a.has("--optimizer-offload-fraction") ? a.number("--optimizer-offload-fraction") : 1.0;
    if (offload_fraction > 1) a.fail("--optimizer-offload-fraction", "is above 1");
    if (!a.has("--use-precision-aware-optimizer"))
      a.fail("--optimizer-cpu-offload", "needs --use-precision-aware-optimizer (Megatron-LM asserts it)");
    if (!a.has("--overlap-cpu-optimizer-d2h-h2d"))
      a.fail("--optimizer-cpu-offload", "without --overlap-cpu-optimizer-d2h-h2d: ShardMeter costs the gradient "
                                        "copies, the CPU step and the parameter copies overlapped (docs/model.md "
                                        "§7.16), which Megatron then runs one after another");
  } else {
    for (std::string_view f : {"--optimizer-offload-fraction", "--overlap-cpu-optimizer-d2h-h2d"})
      if (a.has(f)) a.fail(f, "has no effect without --optimizer-cpu-offload");
  }
  set("plan.optimizer_offload_fraction", fmt::format("{}", offload_fraction),
      a.has("--optimizer-offload-fraction") ? "--optimizer-offload-fraction" : "--optimizer-cpu-offload");
  // Megatron runs the column-parallel backward collective beside the weight-gradient GEMM by default
  // (docs/model.md §4.4); no core_v0.19.0 flag turns it off.
  set("plan.tp_dgrad_overlap", tp > 1 ? "true" : "false", "--tensor-model-parallel-size");
  set("plan.stack", "megatron_te", "--use-mcore-models");
  out.notes.push_back("plan.stack is megatron_te (Megatron-Core with Transformer Engine); --set plan.stack=megatron "
                      "for the 2021 Megatron-LM efficiencies");

  // ---- numerics --------------------------------------------------------------------------------------------------
  if (a.has("--bf16") && a.has("--fp16")) a.fail("--fp16", "is given with --bf16");
  std::string precision = a.has("--fp16") ? "fp16" : "bf16";
  if (!a.has("--bf16") && !a.has("--fp16"))
    throw ScenarioError(SourceLocation{file, 0, 0}, "--bf16", "", "is required (or --fp16): Megatron's default is "
                                                               "fp32 training, which ShardMeter does not cost");
  if (a.has("--fp8-format")) {
    precision = "fp8";
    set("training.fp8_params", a.has("--fp8-param-gather") ? "true" : "false", "--fp8-param-gather");
    if (a.has("--fp8-recipe")) {
      const std::string r = a.text("--fp8-recipe");
      if (r != "delayed" && r != "tensorwise" && r != "mxfp8")
        a.fail("--fp8-recipe", "is not delayed, tensorwise (current scaling) or mxfp8: ShardMeter costs those three");
      set("training.fp8_recipe", r == "tensorwise" ? "current" : r, "--fp8-recipe");
    }
  }
  set("training.precision", precision, a.has("--fp8-format") ? "--fp8-format" : a.has("--fp16") ? "--fp16" : "--bf16");
  if (a.has("--grad-reduce-in-bf16")) set("training.grad_reduce_dtype", "bf16", "--grad-reduce-in-bf16");
  if (a.has("--optimizer")) {
    const std::string o = a.text("--optimizer");
    if (o == "adam") set("training.optimizer", "adamw", "--optimizer");
    else if (o == "sgd") set("training.optimizer", "sgd_momentum", "--optimizer");
    else a.fail("--optimizer", "is not adam or sgd");
  }
  if (a.has("--exp-avg-dtype") || a.has("--exp-avg-sq-dtype")) {
    const std::string m1 = a.has("--exp-avg-dtype") ? a.text("--exp-avg-dtype") : "fp32";
    const std::string m2 = a.has("--exp-avg-sq-dtype") ? a.text("--exp-avg-sq-dtype") : "fp32";
    if (m1 != m2) a.fail(a.has("--exp-avg-dtype") ? "--exp-avg-dtype" : "--exp-avg-sq-dtype",
                         "differs between the two moments: training.optimizer_state_dtype is one type");
    if (m1 != "fp32" && m1 != "bf16") a.fail("--exp-avg-dtype", "is not fp32 or bf16");
    set("training.optimizer_state_dtype", m1, a.has("--exp-avg-dtype") ? "--exp-avg-dtype" : "--exp-avg-sq-dtype");
  }
  a.check_all_read();
  out.notes.push_back("model.dropout follows --attention-dropout / --hidden-dropout (Megatron's default 0.1 each: "
                      "dropout on)");
  return out;
}

}  // namespace shardmeter::cli
