// config.json -> model keys. Field names as the transformers configuration classes define them (LlamaConfig,
// MistralConfig, MixtralConfig, Qwen2Config, Qwen3Config, Qwen3MoeConfig, DeepseekV3Config, GptOssConfig,
// GPTNeoXConfig in huggingface/transformers src/transformers/models/<family>/configuration_<family>.py); the
// mapping tables and the reasons for what is refused are in docs/import.md.
#include "src/scenario/hf_config.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <set>

#include "src/scenario/word_lists.hpp"

namespace shardmeter::cli {

namespace {

using json = nlohmann::json;

// Fields that change nothing ShardMeter costs, in every family: ids, initialisation, the context limit,
// inference-only settings. Read (their presence is fine), never mapped. (The norm epsilon and the rotary base cost
// nothing either but are mapped, to model.norm_eps and model.rope_theta, so exports write them.)
const std::set<std::string, std::less<>> kUnmodelled = {
    "_name_or_path", "architectures", "auto_map", "bos_token_id", "eos_token_id", "pad_token_id", "torch_dtype",
    "dtype", "transformers_version", "initializer_range", "use_cache",
    "max_position_embeddings", "pretraining_tp", "tokenizer_class", "output_router_logits", "router_aux_loss_coef",
    "router_jitter_noise", "quantization_config", "rope_interleave", "attn_implementation", "is_decoder",
    "tie_encoder_decoder", "return_dict", "output_hidden_states", "output_attentions", "use_bfloat16",
    "initial_context_length", "routed_scaling_factor", "norm_topk_prob", "topk_method", "n_group", "topk_group",
    "aux_loss_alpha", "seq_aux", "ep_size", "rotary_pct",
    "use_parallel_residual", "classifier_dropout", "partial_rotary_factor", "rope_parameters"};

const std::vector<std::string> kFamilies = {"llama",      "mistral",     "mixtral", "qwen2",   "qwen3",
                                            "qwen3_moe",  "deepseek_v3", "gpt_oss", "gpt_neox", "mpt"};

std::string number_text(double v) {
  if (v == std::floor(v) && std::fabs(v) < 1e15) return std::to_string(static_cast<long long>(v));
  std::string s = nlohmann::json(v).dump();
  return s;
}

class Mapper {
public:
  explicit Mapper(HfModel& out) : out_(out), json_(out.json) {}

  bool has(const std::string& path) const {
    const json* v = json_.find(path);
    return v != nullptr && !v->is_null();
  }
  void seen(const std::string& path) { used_.insert(path); }
  [[noreturn]] void fail(const std::string& path, const std::string& problem) const { throw json_.error(path, problem); }
  const nlohmann::json* find(const std::string& path) const { return json_.find(path); }

  std::optional<long long> integer(const std::string& path) {
    seen(path);
    const json* v = json_.find(path);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number_integer()) fail(path, "is not an integer");
    return v->get<long long>();
  }
  long long required_integer(const std::string& path) {
    const auto v = integer(path);
    if (!v) throw ScenarioError(SourceLocation{json_.file(), 0, 0}, path, "",
                                "is required for model_type " + out_.model_type + " and the file does not give it");
    return *v;
  }
  std::optional<double> number(const std::string& path) {
    seen(path);
    const json* v = json_.find(path);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_number()) fail(path, "is not a number");
    return v->get<double>();
  }
  std::optional<bool> boolean(const std::string& path) {
    seen(path);
    const json* v = json_.find(path);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_boolean()) fail(path, "is not true or false");
    return v->get<bool>();
  }
  std::optional<std::string> string(const std::string& path) {
    seen(path);
    const json* v = json_.find(path);
    if (v == nullptr || v->is_null()) return std::nullopt;
    if (!v->is_string()) fail(path, "is not a string");
    return v->get<std::string>();
  }

  void set(const std::string& key, const std::string& value, const std::string& path) {
    out_.keys.push_back(HfModelKey{key, value, path});
  }
  void set_int(const std::string& key, long long value, const std::string& path) { set(key, std::to_string(value), path); }

  // Every top-level field must have been read or be one of kUnmodelled.
  void check_all_read() {
    for (const auto& [name, value] : json_.root().items()) {
      if (used_.count(name) != 0) continue;
      if (kUnmodelled.count(name) != 0) {
        out_.unmodelled.push_back(name);
        continue;
      }
      fail(name, "is a field ShardMeter cannot map for model_type " + out_.model_type +
                     ": it is neither a model key nor known to leave the cost unchanged (docs/import.md); remove it "
                     "if it does not change the architecture, or describe the model with model keys");
    }
  }

private:
  HfModel& out_;
  const LocatedJson& json_;
  std::set<std::string, std::less<>> used_;
};

// The numerics no cost depends on but the trained model does: the norm epsilon and the rotary base (model.norm_eps,
// model.rope_theta). Absent fields leave the keys' defaults (1e-5, 10000).
void map_numerics(Mapper& m, const std::string& eps_field, const std::vector<std::string>& theta_fields) {
  if (const auto eps = m.number(eps_field)) {
    if (!(*eps > 0 && *eps <= 0.1)) m.fail(eps_field, "is not a norm epsilon between 0 and 0.1");
    m.set("norm_eps", number_text(*eps), eps_field);
  }
  for (const std::string& field : theta_fields)
    if (const auto theta = m.number(field)) {
      if (!(*theta >= 1)) m.fail(field, "is not a rotary base of 1 or more");
      m.set("rope_theta", number_text(*theta), field);
    }
}

// rope_scaling: none, or a scaling of the rotary frequencies. Only YaRN changes a cost (docs/model.md §15.4: the
// Megatron stacks run it unfused); the others rescale frequencies at no cost and are accepted.
void map_rope_scaling(Mapper& m) {
  m.seen("rope_scaling");
  if (!m.has("rope_scaling")) return;
  std::optional<std::string> type = m.string("rope_scaling.rope_type");
  if (!type) type = m.string("rope_scaling.type");
  if (!type) m.fail("rope_scaling", "names no rope_type");
  if (*type == "yarn") {
    const auto factor = m.number("rope_scaling.factor");
    if (!factor || *factor < 1) m.fail("rope_scaling.factor", "is not a YaRN factor of 1 or more");
    m.set("yarn_factor", number_text(*factor), "rope_scaling.factor");
    return;
  }
  static const std::set<std::string> neutral = {"default", "linear", "dynamic", "llama3"};
  if (neutral.count(*type) == 0)
    m.fail(m.has("rope_scaling.rope_type") ? "rope_scaling.rope_type" : "rope_scaling.type",
           "is a rotary scaling ShardMeter does not know the cost of (known: yarn, and default, linear, dynamic, "
           "llama3, which change no cost)");
}

// Sliding-window attention: `sliding_window` keys (itself included, as transformers' sliding-window mask counts
// them) on the blocks `layer_types` marks "sliding_attention" (all blocks when it is absent); the pattern must be
// model.full_attention_every's: block i (from 1) attends fully when i % N == 0.
void map_window(Mapper& m, int layers, bool window_switch) {
  bool window_on = true;
  if (window_switch) {
    const auto use = m.boolean("use_sliding_window");
    m.seen("max_window_layers");
    window_on = use.value_or(false);
    if (window_on)
      m.fail("use_sliding_window", "mixes windowed and full blocks by max_window_layers, which model.attention_window "
                                   "and model.full_attention_every cannot express");
  }
  const auto window = m.integer("sliding_window");
  m.seen("layer_types");
  // layer_types, when given, says which blocks attend fully.
  int every = 0;
  bool any_sliding = true;
  if (m.has("layer_types")) {
    std::vector<std::string> kinds;
    for (int i = 0;; ++i) {
      const std::string path = "layer_types." + std::to_string(i);
      if (!m.has(path)) break;
      const auto kind = m.string(path);
      if (*kind != "sliding_attention" && *kind != "full_attention")
        m.fail(path, "is neither sliding_attention nor full_attention");
      kinds.push_back(*kind);
    }
    if (static_cast<int>(kinds.size()) != layers)
      m.fail("layer_types", "lists " + std::to_string(kinds.size()) + " blocks, not num_hidden_layers = " +
                                std::to_string(layers));
    const auto first_full = std::find(kinds.begin(), kinds.end(), "full_attention");
    any_sliding = std::find(kinds.begin(), kinds.end(), "sliding_attention") != kinds.end();
    if (any_sliding && first_full != kinds.end()) {
      every = static_cast<int>(first_full - kinds.begin()) + 1;
      for (int i = 0; i < layers; ++i)
        if ((kinds[static_cast<std::size_t>(i)] == "full_attention") != ((i + 1) % every == 0))
          m.fail("layer_types." + std::to_string(i),
                 "breaks the pattern of every " + std::to_string(every) +
                     "th block attending fully, the only mix model.full_attention_every expresses");
    }
  }
  if (!window_on || !window || *window <= 0 || !any_sliding) return;
  m.set_int("attention_window", *window, "sliding_window");
  if (every > 0) m.set_int("full_attention_every", every, "layer_types");
}

// The decoder families with a gated (SwiGLU) MLP, RMSNorm and RoPE: Llama, Mistral, Mixtral, Qwen2/3 (MoE),
// DeepSeek-V3, gpt-oss.
void map_gated_decoder(Mapper& m, HfModel& out) {
  const std::string& t = out.model_type;
  const long long hidden = m.required_integer("hidden_size");
  const long long layers = m.required_integer("num_hidden_layers");
  const long long heads = m.required_integer("num_attention_heads");
  m.set_int("layers", layers, "num_hidden_layers");
  m.set_int("hidden", hidden, "hidden_size");
  m.set_int("heads", heads, "num_attention_heads");
  if (const auto kv = m.integer("num_key_value_heads")) {
    if (*kv <= 0 || heads % *kv != 0) m.fail("num_key_value_heads", "does not divide num_attention_heads = " + std::to_string(heads));
    m.set_int("kv_heads", *kv, "num_key_value_heads");
  }
  const bool mla = t == "deepseek_v3";
  if (mla) {
    m.set_int("head_dim", m.required_integer("qk_nope_head_dim"), "qk_nope_head_dim");
    m.seen("head_dim");
  } else if (const auto hd = m.integer("head_dim")) {
    m.set_int("head_dim", *hd, "head_dim");
  } else if (heads <= 0 || hidden % heads != 0) {
    m.fail("num_attention_heads", "does not divide hidden_size = " + std::to_string(hidden) + " and the file gives no head_dim");
  }
  m.set_int("ffn_hidden", m.required_integer("intermediate_size"), "intermediate_size");
  const std::string act = m.string("hidden_act").value_or("silu");
  if (act != "silu" && act != "swish")
    m.fail("hidden_act", "is not silu: the gated MLP of model_type " + t +
                             " with another activation is no ffn_type ShardMeter has (gelu is the ungated 2-matrix MLP)");
  m.set("ffn_type", "swiglu", "hidden_act");
  m.set_int("vocab", m.required_integer("vocab_size"), "vocab_size");
  m.set("norm", "rmsnorm", "model_type");
  m.set("position_embedding", "rope", "model_type");
  map_numerics(m, "rms_norm_eps", {"rope_theta"});
  map_rope_scaling(m);
  map_window(m, static_cast<int>(layers), t == "qwen2" || t == "qwen3" || t == "qwen3_moe");

  // Linear biases: ShardMeter's model.bias is all linear layers or none.
  bool bias = t == "gpt_oss";
  if (t == "qwen2") {
    bias = false;
    out.approximations.push_back("Qwen2's query/key/value biases (a few thousand parameters per block) are left "
                                 "out: model.bias is all linear layers or none");
  }
  const auto attention_bias = m.boolean("attention_bias");
  const auto mlp_bias = m.boolean("mlp_bias");
  if (attention_bias) bias = *attention_bias;
  if (mlp_bias && *mlp_bias != bias)
    m.fail("mlp_bias", std::string("differs from the attention's biases (") + (bias ? "true" : "false") +
                           "): model.bias is all linear layers or none");
  m.set("bias", bias ? "true" : "false", attention_bias ? "attention_bias" : "model_type");
  m.set("tied_embeddings", m.boolean("tie_word_embeddings").value_or(false) ? "true" : "false", "tie_word_embeddings");
  const double dropout = m.number("attention_dropout").value_or(0.0);
  m.set("dropout", dropout > 0 ? "true" : "false", "attention_dropout");

  // Mixture of experts.
  std::string experts_field;
  if (t == "mixtral" || t == "gpt_oss") experts_field = "num_local_experts";
  if (t == "qwen3_moe") experts_field = "num_experts";
  if (t == "deepseek_v3") experts_field = "n_routed_experts";
  if (experts_field.empty()) return;
  m.set_int("experts", m.required_integer(experts_field), experts_field);
  std::optional<long long> top_k = m.integer("num_experts_per_tok");
  std::string top_k_field = "num_experts_per_tok";
  if (t == "gpt_oss") {  // gpt-oss's files give both spellings
    const auto other = m.integer("experts_per_token");
    if (top_k && other && *other != *top_k)
      m.fail("experts_per_token", "differs from num_experts_per_tok = " + std::to_string(*top_k));
    if (!top_k) {
      top_k = other;
      top_k_field = "experts_per_token";
    }
  }
  if (!top_k) top_k = m.required_integer("num_experts_per_tok");
  m.set_int("top_k", *top_k, top_k_field);
  if (t == "qwen3_moe" || t == "deepseek_v3")
    m.set_int("expert_ffn_hidden", m.required_integer("moe_intermediate_size"), "moe_intermediate_size");
  if (t == "qwen3_moe") {
    if (const auto step = m.integer("decoder_sparse_step"); step && *step != 1)
      m.fail("decoder_sparse_step", "is not 1: Qwen3-MoE's sparse blocks are those with (i + 1) % step == 0, "
                                    "model.moe_every's are every n-th block from the first");
    m.seen("mlp_only_layers");
    if (m.has("mlp_only_layers.0"))
      m.fail("mlp_only_layers", "lists dense blocks by index: model.dense_layers keeps only the first blocks dense");
  }
  if (t == "deepseek_v3") {
    if (const auto shared = m.integer("n_shared_experts")) m.set_int("shared_experts", *shared, "n_shared_experts");
    if (const auto dense = m.integer("first_k_dense_replace")) m.set_int("dense_layers", *dense, "first_k_dense_replace");
    if (const auto every = m.integer("moe_layer_freq")) m.set_int("moe_every", *every, "moe_layer_freq");
    const std::string scoring = m.string("scoring_func").value_or("softmax");
    if (scoring != "sigmoid" && scoring != "softmax") m.fail("scoring_func", "is neither sigmoid nor softmax");
    m.set("router", scoring, "scoring_func");
    if (const auto mtp = m.integer("num_nextn_predict_layers")) m.set_int("mtp_layers", *mtp, "num_nextn_predict_layers");
    m.set_int("q_lora_rank", m.integer("q_lora_rank").value_or(0), "q_lora_rank");
    m.set_int("kv_lora_rank", m.required_integer("kv_lora_rank"), "kv_lora_rank");
    m.set_int("rope_head_dim", m.required_integer("qk_rope_head_dim"), "qk_rope_head_dim");
    m.set_int("v_head_dim", m.required_integer("v_head_dim"), "v_head_dim");
  }
  if (t == "gpt_oss") {
    if (const auto limit = m.number("swiglu_limit")) m.set("expert_activation_clamp", number_text(*limit), "swiglu_limit");
    out.approximations.push_back("gpt-oss's attention sinks (one parameter per head and block) are left out, as in "
                                 "the gpt-oss presets");
  }
}

// GPT-NeoX (Pythia, GPT-NeoX-20B): GELU MLP, LayerNorm, rotary embeddings, biases everywhere.
void map_gpt_neox(Mapper& m) {
  const long long hidden = m.required_integer("hidden_size");
  const long long heads = m.required_integer("num_attention_heads");
  if (heads <= 0 || hidden % heads != 0) m.fail("num_attention_heads", "does not divide hidden_size");
  m.set_int("layers", m.required_integer("num_hidden_layers"), "num_hidden_layers");
  m.set_int("hidden", hidden, "hidden_size");
  m.set_int("heads", heads, "num_attention_heads");
  m.set_int("ffn_hidden", m.required_integer("intermediate_size"), "intermediate_size");
  const std::string act = m.string("hidden_act").value_or("gelu");
  if (act.rfind("gelu", 0) != 0) m.fail("hidden_act", "is not a GELU: GPT-NeoX's MLP is ffn_type gelu");
  m.set("ffn_type", "gelu", "hidden_act");
  m.set_int("vocab", m.required_integer("vocab_size"), "vocab_size");
  m.set("norm", "layernorm", "model_type");
  m.set("position_embedding", "rope", "model_type");
  // transformers renamed GPT-NeoX's rotary_emb_base to rope_theta; a file gives one of them.
  map_numerics(m, "layer_norm_eps", {"rotary_emb_base", "rope_theta"});
  map_rope_scaling(m);
  const bool bias = m.boolean("attention_bias").value_or(true);
  if (!bias) m.fail("attention_bias", "is false: GPT-NeoX's MLP keeps its biases, and model.bias is all or none");
  m.set("bias", "true", "model_type");
  m.set("tied_embeddings", m.boolean("tie_word_embeddings").value_or(false) ? "true" : "false", "tie_word_embeddings");
  const double dropout = std::max(m.number("attention_dropout").value_or(0.0), m.number("hidden_dropout").value_or(0.0));
  m.set("dropout", dropout > 0 ? "true" : "false", "hidden_dropout");
}

// MPT (mosaicml/mpt-*, model_type "mpt"; fields of MPTConfig in llm-foundry llmfoundry/models/mpt/
// configuration_mpt.py, which the checkpoints ship as configuration_mpt.py): GELU MLP of expansion_ratio x d_model,
// (low-precision) LayerNorm, tied embeddings, and ALiBi (attn_config.alibi), RoPE (attn_config.rope) or learned
// positions (learned_pos_emb), in that order of precedence (MPTConfig._validate_config turns learned_pos_emb off
// under ALiBi or RoPE).
void map_mpt(Mapper& m, HfModel& out) {
  const long long hidden = m.required_integer("d_model");
  const long long heads = m.required_integer("n_heads");
  if (heads <= 0 || hidden % heads != 0) m.fail("n_heads", "does not divide d_model = " + std::to_string(hidden));
  m.set_int("layers", m.required_integer("n_layers"), "n_layers");
  m.set_int("hidden", hidden, "d_model");
  m.set_int("heads", heads, "n_heads");
  m.set_int("vocab", m.required_integer("vocab_size"), "vocab_size");
  m.seen("max_seq_len");   // the context limit, as max_position_embeddings elsewhere

  // The MLP: ffn_config (later llm-foundry) names its kind and may give the width; else expansion_ratio x d_model.
  m.seen("ffn_config");
  if (m.has("ffn_config")) {
    const std::string kind = m.string("ffn_config.ffn_type").value_or("mptmlp");
    if (kind != "mptmlp")
      m.fail("ffn_config.ffn_type", "is not mptmlp: ShardMeter maps MPT's plain GELU MLP (mptglu's gated GELU is no "
                                    "ffn_type it has, and the MoE kinds need keys MPT's file does not give)");
    if (const auto act = m.string("ffn_config.ffn_act_fn.name"); act && act->rfind("gelu", 0) != 0)
      m.fail("ffn_config.ffn_act_fn.name", "is not a GELU: MPT's MLP is ffn_type gelu");
    m.seen("ffn_config.ffn_act_fn");
  }
  if (const auto given = m.has("ffn_config.ffn_hidden_size") ? m.integer("ffn_config.ffn_hidden_size") : std::nullopt) {
    m.seen("expansion_ratio");
    m.set_int("ffn_hidden", *given, "ffn_config.ffn_hidden_size");
  } else {
    const auto ratio = m.number("expansion_ratio");
    const double r = ratio.value_or(4.0);
    const double width = r * static_cast<double>(hidden);
    if (!(r > 0) || width != std::floor(width))
      m.fail("expansion_ratio", "does not give a whole MLP width with d_model = " + std::to_string(hidden));
    m.set_int("ffn_hidden", static_cast<long long>(width), ratio ? "expansion_ratio" : "model_type");
  }
  m.set("ffn_type", "gelu", "model_type");

  const std::string norm = m.string("norm_type").value_or("low_precision_layernorm");
  if (norm == "layernorm" || norm == "low_precision_layernorm") m.set("norm", "layernorm", "norm_type");
  else if (norm == "rmsnorm" || norm == "low_precision_rmsnorm") m.set("norm", "rmsnorm", "norm_type");
  else m.fail("norm_type", "is not layernorm, low_precision_layernorm, rmsnorm or low_precision_rmsnorm");
  m.set("bias", m.boolean("no_bias").value_or(false) ? "false" : "true", "no_bias");
  m.set("tied_embeddings", m.boolean("tie_word_embeddings").value_or(true) ? "true" : "false", "tie_word_embeddings");

  // attn_config: every sub-field is mapped, cost-neutral, or refused at its line.
  m.seen("attn_config");
  long long kv = heads;
  std::string position = m.boolean("learned_pos_emb").value_or(true) ? "learned" : "";
  std::string position_from = "learned_pos_emb";
  if (m.has("attn_config")) {
    const nlohmann::json* attn = m.find("attn_config");
    if (!attn->is_object()) m.fail("attn_config", "is not an object");
    for (const auto& item : attn->items()) {
      const std::string name = item.key();
      const std::string path = "attn_config." + name;
      static const std::set<std::string, std::less<>> neutral = {
          "attn_impl", "alibi_bias_max", "clip_qkv", "softmax_scale", "attn_uses_sequence_id", "rope_impl",
          "rope_dail_config", "rope_hf_config", "flash_attn_version", "fused_qkv", "attn_logit_softcapping"};
      if (neutral.count(name) != 0) {
        m.seen(path);
        continue;
      }
      if (name == "attn_type") {
        const std::string type = *m.string(path);
        if (type == "multiquery_attention") kv = 1;
        else if (type == "grouped_query_attention") kv = m.required_integer("attn_config.kv_n_heads");
        else if (type != "multihead_attention")
          m.fail(path, "is not multihead_attention, grouped_query_attention or multiquery_attention");
      } else if (name == "kv_n_heads") {
        m.seen(path);   // read with attn_type grouped_query_attention
      } else if (name == "alibi") {
        if (m.boolean(path).value_or(false)) {
          position = "alibi";
          position_from = path;
        }
      } else if (name == "rope") {
        if (m.boolean(path).value_or(false) && position != "alibi") {
          position = "rope";
          position_from = path;
        }
      } else if (name == "rope_theta") {
        m.seen(path);   // set below with attn_config.rope
      } else if (name == "attn_pdrop") {
        m.seen(path);   // read with the dropout below
      } else if (name == "qk_ln" || name == "qk_gn" || name == "prefix_lm") {
        if (m.boolean(path).value_or(false))
          m.fail(path, name == "prefix_lm" ? "is true: a prefix-LM attends bidirectionally over the prefix, which "
                                             "ShardMeter's causal attention cost does not describe"
                                           : "is true: norms on the queries and keys are layers no model key holds");
      } else if (name == "sliding_window_size") {
        if (const auto w = m.integer(path); w && *w != -1)
          m.fail(path, "is not -1: give the window as model.attention_window (keys attended, itself included) "
                       "after checking llm-foundry's window convention");
      } else {
        m.fail(path, "is a field of attn_config ShardMeter cannot map: it is neither a model key nor known to leave "
                     "the cost unchanged (docs/import.md)");
      }
    }
  }
  if (kv <= 0 || heads % kv != 0) m.fail("attn_config.kv_n_heads", "does not divide n_heads");
  m.set_int("kv_heads", kv, "attn_config.attn_type");
  if (position.empty())
    m.fail("learned_pos_emb", "is false and attn_config turns neither alibi nor rope on: a model without position "
                              "information is no position_embedding ShardMeter has");
  m.set("position_embedding", position, position_from);
  if (position == "rope") {
    if (const auto theta = m.number("attn_config.rope_theta")) m.set("rope_theta", number_text(*theta), "attn_config.rope_theta");
  }
  const double dropout = std::max({m.number("emb_pdrop").value_or(0.0), m.number("resid_pdrop").value_or(0.0),
                                   m.number("attn_config.attn_pdrop").value_or(0.0)});
  m.set("dropout", dropout > 0 ? "true" : "false", "resid_pdrop");
  // Training-only or inference-only settings: initialisation, logits scaling, the embedding-gradient fraction.
  for (const char* f : {"init_config", "init_device", "verbose", "tokenizer_name", "logit_scale", "embedding_fraction",
                        "use_pad_tok_in_ffn", "final_logit_softcapping", "block_overrides", "norm_config"})
    m.seen(f);
  if (m.has("moe_loss_weight")) m.fail("moe_loss_weight", "belongs to llm-foundry's MoE MLP, which the import does not map");
  (void)out;
}

}  // namespace

const HfModelKey* HfModel::find(std::string_view key) const {
  for (const HfModelKey& k : keys)
    if (k.key == key) return &k;
  return nullptr;
}

const std::vector<std::string>& hf_model_types() { return kFamilies; }

namespace {

HfModel map_hf_config(LocatedJson json) {
  const std::string file = json.file();
  HfModel out{std::move(json), "", {}, {}, {}};
  if (!out.json.root().is_object())
    throw ScenarioError(SourceLocation{file, 1, 1}, "", "", "is not a JSON object (a config.json holds one)");
  Mapper m(out);
  const auto type = m.string("model_type");
  if (!type) throw ScenarioError(SourceLocation{file, 0, 0}, "model_type", "", "is required (it names the model family)");
  out.model_type = *type;
  if (std::find(kFamilies.begin(), kFamilies.end(), *type) == kFamilies.end())
    m.fail("model_type", "is not a model family ShardMeter maps; known: " + join(kFamilies));
  if (*type == "gpt_neox")
    map_gpt_neox(m);
  else if (*type == "mpt")
    map_mpt(m, out);
  else
    map_gated_decoder(m, out);
  m.check_all_read();
  return out;
}

}  // namespace

HfModel read_hf_config_text(const std::string& text, const std::string& file) {
  return map_hf_config(LocatedJson::parse(text, file));
}

HfModel read_hf_config(const std::string& path) { return map_hf_config(LocatedJson::read_file(path)); }

}  // namespace shardmeter::cli
