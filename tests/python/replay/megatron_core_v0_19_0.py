"""Megatron-LM core_v0.19.0 (NVIDIA/Megatron-LM@5be9626709af2722333bf54797c954c09edeada3): the argument parser and
validate_args checks, replayed on ShardMeter's MEGATRON_ARGS export. A = megatron/training/arguments.py,
TC = megatron/core/transformer/transformer_config.py, MPC = megatron/core/model_parallel_config.py,
NMC = megatron/core/num_microbatches_calculator.py, SCH = megatron/core/pipeline_parallel/schedules.py, all at that
tag. Flags generated from dataclass fields follow A:2290-2291 and megatron/training/argument_utils.py:95-212.
"""
import re
import shlex

from common import Checks, check_tokens_trained, check_warmup

INT, SWITCH = "int", "switch"
# Every flag the export may write, with its kind or its choices.
FLAGS = {
    "--num-layers": INT, "--hidden-size": INT, "--num-attention-heads": INT,          # TC:65, 138, 141
    "--group-query-attention": SWITCH, "--num-query-groups": INT,                        # A:2299, TC:168-170
    "--ffn-hidden-size": INT, "--kv-channels": INT,                                      # TC:173, 177
    "--seq-length": INT, "--max-position-embeddings": INT,                               # A:3138, A:2311
    "--position-embedding-type": {"learned_absolute", "rope", "yarn", "mrope", "relative", "none"},   # A:2314
    "--swiglu": SWITCH, "--normalization": {"LayerNorm", "RMSNorm"},                     # A:2367, TC:249
    "--untie-embeddings-and-output-weights": SWITCH, "--disable-bias-linear": SWITCH,    # A:2377, TC:205-206
    "--attention-dropout": "float", "--hidden-dropout": "float",                         # A: _add_regularization_args (default 0.1)
    "--tensor-model-parallel-size": INT, "--pipeline-model-parallel-size": INT,          # MPC:55, 83
    "--context-parallel-size": INT, "--sequence-parallel": SWITCH,                       # MPC:100, 94
    "--num-layers-per-virtual-pipeline-stage": INT, "--num-virtual-stages-per-pipeline-rank": INT,   # A:2961-2963
    "--decoder-first-pipeline-num-layers": INT, "--decoder-last-pipeline-num-layers": INT,          # A:2942-2946
    "--account-for-embedding-in-pipeline-split": SWITCH, "--account-for-loss-in-pipeline-split": SWITCH,  # TC:130, 134
    "--pipeline-model-parallel-layout": "str",                                           # A:2950-2957
    "--micro-batch-size": INT, "--global-batch-size": INT,                               # training_config.py:11, 15
    "--recompute-granularity": {"full", "selective"}, "--recompute-method": {"uniform", "block"},   # TC:518, 529
    "--recompute-num-layers": INT,                                                       # TC:537
    "--use-distributed-optimizer": SWITCH, "--overlap-grad-reduce": SWITCH,              # A:2997, 2968
    "--overlap-param-gather": SWITCH, "--use-megatron-fsdp": SWITCH,                     # A:2989, common_config.py:92
    "--data-parallel-sharding-strategy": {"no_shard", "optim", "optim_grads", "optim_grads_params"},   # A:3023
    "--no-gradient-accumulation-fusion": SWITCH,                                         # A:2807
    "--ckpt-format": {"torch", "torch_dist", "torch_dcp", "fsdp_dtensor"},               # training_config.py:486
    "--tp-comm-overlap": SWITCH, "--bf16": SWITCH, "--fp16": SWITCH,                     # MPC:265, 180, 177
    "--fp8-format": {"e4m3", "hybrid"},                                                  # TC:566-567
    # Mixture of experts: A:3348-3378 (_add_moe_args) and generated TransformerConfig / ModelParallelConfig fields.
    "--num-experts": INT, "--moe-router-topk": INT, "--moe-ffn-hidden-size": INT,          # A:3351, TC:739, 719
    "--moe-shared-expert-intermediate-size": INT, "--moe-layer-freq": "freq",             # TC:680, A:3353
    "--moe-grouped-gemm": SWITCH,                                                          # TC:829
    "--moe-router-score-function": {"softmax", "sigmoid", "sqrtsoftplus"},                 # TC:787
    "--moe-router-enable-expert-bias": SWITCH, "--moe-router-dtype": {"fp32", "fp64"},     # TC:795, 790
    "--moe-router-load-balancing-type": {"aux_loss", "seq_aux_loss", "global_aux_loss", "sinkhorn",
                                         "quantile_balancing", "none"},                   # A:3365-3368
    "--moe-expert-capacity-factor": "float", "--mtp-num-layers": INT,                     # TC:888, 68
    "--expert-model-parallel-size": INT, "--expert-tensor-parallel-size": INT,            # MPC:127, 130
    "--moe-token-dispatcher-type": {"allgather", "alltoall", "flex"},                     # TC:862
    "--moe-flex-dispatcher-backend": {"deepep", "hybridep", "ncclep"},                    # TC:869
    "--overlap-moe-expert-parallel-comm": SWITCH, "--recompute-modules": "list",          # MPC:343, TC:546
    # Multi-head latent attention: TC:281, A:3380-3392 (_add_mla_args).
    "--multi-latent-attention": SWITCH, "--q-lora-rank": INT, "--kv-lora-rank": INT, "--qk-head-dim": INT,
    "--qk-pos-emb-head-dim": INT, "--v-head-dim": INT,
    # Sliding-window attention: A:2301-2306 (tuple_type A:376-386, moe_freq_type A:326-349), TC:240-247.
    "--window-size": "tuple", "--window-attn-skip-freq": "freq",
    # The run length (training_config.py: train_iters).
    "--train-iters": INT,
    # RoPE base and vocabulary padding (A: _add_network_size_args).
    "--rotary-base": INT, "--make-vocab-size-divisible-by": INT, "--norm-epsilon": "float",
    # The learning-rate warm-up (A: _add_learning_rate_args).
    "--lr-warmup-iters": INT,
    "--fp8-param-gather": SWITCH,                                                         # A: _add_training_args
}
RECOMPUTE_MODULES = {"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts",
                     "gdn_norm_out"}   # TC:1766-1783
# torch.cuda.get_device_capability() major of the catalog's GPUs (--moe-grouped-gemm needs >= 8, A:1338-1340);
# ROCm reports gfx942 (MI300X / MI325X) as 9.4.
COMPUTE_CAPABILITY = {"a100-sxm-40gb": 8, "a100-sxm-80gb": 8, "h100-sxm": 9, "h100-pcie": 9, "h200-sxm": 9,
                      "b200": 10, "gb200": 10, "mi300x": 9, "mi325x": 9, "l40s": 8, "rtx-4090": 8,
                      "v100-sxm2-16gb": 7, "a10g": 8, "a10": 8, "l4": 8, "l40": 8, "h20": 9, "b300": 10, "gb300": 10}


def eval_pattern(text):
    """A:244-252: only digits, commas, brackets, parentheses, + and * are allowed, then Python evaluates it."""
    if re.search(r"[^,\d\[\]\(\)\+\*]", text):
        return None
    return eval(text)  # noqa: S307 -- the characters are restricted as Megatron restricts them
BLACKWELL = {"b200", "gb200"}   # get_device_arch_version() >= 10 (A:1413-1439)


def parse(text, c):
    """(args dict flag -> value or True, environment exports, gpu) of the export."""
    args, env, gpu = {}, {}, None
    m = re.search(r"^MEGATRON_ARGS=\((.*?)^\)", text, re.S | re.M)
    if not c.require(m is not None, "no MEGATRON_ARGS=( ... ) array"):
        return args, env, gpu
    tokens = shlex.split(m.group(1), comments=True)
    i = 0
    while i < len(tokens):
        flag = tokens[i]
        kind = FLAGS.get(flag)
        if not c.require(kind is not None, f"{flag}: argparse would reject an unknown argument"):
            i += 1
            continue
        c.require(flag not in args, f"{flag} given twice")
        if kind == SWITCH:
            args[flag] = True
            i += 1
            continue
        if kind == "list":   # nargs="+": every following token up to the next flag
            values = []
            i += 1
            while i < len(tokens) and not tokens[i].startswith("--"):
                values.append(tokens[i])
                i += 1
            c.require(values, f"{flag} needs at least one value")
            args[flag] = values
            continue
        value = tokens[i + 1] if i + 1 < len(tokens) else None
        if kind == "freq":   # moe_freq_type (A:326-349): an int or a pattern expression
            if value is not None and re.fullmatch(r"\d+", value):
                args[flag] = int(value)
            else:
                pattern = eval_pattern(value or "")
                c.require(isinstance(pattern, list), f"{flag} {value}: not an int or an allowed pattern (A:244-252)")
                args[flag] = pattern if isinstance(pattern, list) else None
            i += 2
            continue
        if kind == "float":
            c.require(value is not None and re.fullmatch(r"-?\d+(\.\d*)?([eE]-?\d+)?", value) is not None,
                      f"{flag} {value}: not a float")
            args[flag] = float(value) if value and re.fullmatch(r"-?\d+(\.\d*)?([eE]-?\d+)?", value) else None
            i += 2
            continue
        if kind == "tuple":   # tuple_type (A:376-386): "1,2" or "(1,2)" -> a tuple of ints
            ok = value is not None and re.fullmatch(r"\(?-?\d+(,-?\d+)*\)?", value) is not None
            c.require(ok, f"{flag} {value}: not a tuple of ints (A:376-386)")
            args[flag] = tuple(int(x) for x in value.strip("()").split(",")) if ok else None
            i += 2
            continue
        if kind == "str":
            c.require(value is not None, f"{flag} needs a value")
            args[flag] = value
        elif kind == INT:
            c.require(value is not None and re.fullmatch(r"-?\d+", value) is not None, f"{flag} {value}: not an int")
            args[flag] = int(value) if value and re.fullmatch(r"-?\d+", value) else None
        else:
            c.require(value in kind, f"{flag} {value}: not one of {sorted(kind)}")
            args[flag] = value
        i += 2
    for line in text.splitlines():
        e = re.match(r"export (\w+)=(\S+)", line)
        if e:
            env[e.group(1)] = e.group(2)
        g = re.match(r"# plan: ([^,]+),", line)
        if g:
            gpu = g.group(1)
    return args, env, gpu


def parse_layout(text, c):
    """PipelineParallelLayerLayout.parse_str_to_list: cosmetic commas dropped, (..)*n and x*n unrolled, '|' splits."""
    text = text.replace(",", "")
    for pattern in (r"\(([^)]+)\)\*(\d+)", r"(.)\*(\d+)"):
        text = re.sub(pattern, lambda x: x.group(1) * int(x.group(2)), text)
    stages = [list(stage) for stage in text.split("|")]
    c.require(all(ch in "ELtm" for stage in stages for ch in stage), f"unknown layer character in {text}")
    return stages


def check(text, plan):
    c = Checks("Megatron-LM core_v0.19.0")
    a, env, gpu = parse(text, c)
    world = plan["job"]["world_size"]
    tp = a.get("--tensor-model-parallel-size", 1)
    pp = a.get("--pipeline-model-parallel-size", 1)
    cp = a.get("--context-parallel-size", 1)
    c.require((tp, pp, cp) == (plan["plan"]["tp"], plan["plan"]["pp"], plan["plan"]["cp"]), "tp/pp/cp differ")
    # World and data parallelism (A:422-446; megatron/core/parallel_state.py:815-825).
    if c.require(world % (tp * pp * cp) == 0, f"world {world} % (tp x pp x cp = {tp * pp * cp}) != 0"):
        dp = world // (tp * pp * cp)
        c.require(dp == plan["job"]["data_parallel"], f"dp {dp} != the plan's {plan['job']['data_parallel']}")
    else:
        return c.failures
    # Batch (A:675-687, NMC:381-391).
    micro, global_batch = a.get("--micro-batch-size"), a.get("--global-batch-size")
    c.require(micro is not None and micro > 0, "--micro-batch-size must be set and > 0")
    c.require(global_batch is not None and global_batch > 0, "--global-batch-size must be > 0")
    if micro and global_batch and c.require(global_batch % (micro * dp) == 0,
                                            f"global batch {global_batch} % (micro {micro} x dp {dp}) != 0"):
        m_b = global_batch // (micro * dp)
        c.require(m_b == plan["job"]["gradient_accumulation_steps"], f"{m_b} micro-batches, the plan "
                  f"{plan['job']['gradient_accumulation_steps']}")
    # Model (A:1274-1316; TC:1323-1345).
    layers, hidden, heads = a.get("--num-layers"), a.get("--hidden-size"), a.get("--num-attention-heads")
    for flag in ("--num-layers", "--hidden-size", "--num-attention-heads", "--max-position-embeddings"):
        c.require(flag in a, f"{flag} is required (A:1274-1277)")
    c.require(layers == plan["model"]["layers"] and hidden == plan["model"]["hidden"]
              and heads == plan["model"]["heads"], "model dimensions differ from the plan's")
    if heads:
        c.require(heads % tp == 0, f"num_attention_heads {heads} % tp {tp} != 0 (TC:1323-1327)")
        groups = a.get("--num-query-groups", 1) if "--group-query-attention" in a else heads
        c.require(groups == plan["model"]["kv_heads"], "query groups differ from the plan's KV heads")
        c.require(groups % tp == 0 or tp % groups == 0, "num_query_groups and tp must divide one another")
        if "--kv-channels" not in a:
            c.require(hidden % heads == 0, "hidden % heads != 0 without --kv-channels (A:1291-1293)")
    c.require(a.get("--seq-length") == plan["model"]["seq_len"], "--seq-length differs from the plan's")
    check_tokens_trained(c, a.get("--train-iters"), (a.get("--global-batch-size") or 0) * (a.get("--seq-length") or 0),
                         plan, "--train-iters")
    check_warmup(c, a.get("--lr-warmup-iters"), (a.get("--global-batch-size") or 0) * (a.get("--seq-length") or 0),
                 plan, "--lr-warmup-iters")
    # The model's numerics, where plan-json has them (a rebuilt scenario).
    if plan["model"].get("norm_eps") is not None:
        c.require(a.get("--norm-epsilon") == plan["model"]["norm_eps"], "--norm-epsilon differs from the plan's")
    if plan["model"].get("rope_theta") is not None and a.get("--position-embedding-type") == "rope":
        c.require(a.get("--rotary-base") == plan["model"]["rope_theta"], "--rotary-base differs from the plan's")
    # Sliding windows (TC:240-247; transformer/utils.py is_layer_window_attention): window_size (left, right) with
    # left the keys before the query, so the plan's window of w keys is (w - 1, 0); every N-th block full.
    window, every = plan["model"].get("attention_window"), plan["model"].get("full_attention_every")
    if window:
        c.require(a.get("--window-size") == (window - 1, 0), f"--window-size {a.get('--window-size')} is not the plan's "
                  f"window of {window} keys ({window - 1},0)")
        c.require(a.get("--window-attn-skip-freq") == (every or None), "--window-attn-skip-freq differs from the plan's "
                  f"full_attention_every {every}")
    else:
        c.require("--window-size" not in a and "--window-attn-skip-freq" not in a,
                  "window attention flags for a plan without a sliding window")
    c.require(a.get("--max-position-embeddings", 0) >= a.get("--seq-length", 0), "max_position_embeddings < seq_length")
    if cp > 1:
        c.require(a.get("--seq-length", 0) % (2 * cp) == 0, "seq_length % (2 x cp) != 0 (A:1295-1298)")
    # Pipeline (A:894-975; TC:1923-2109; megatron/core/transformer/transformer_block.py get_num_layers_to_build;
    # megatron/core/transformer/pipeline_parallel_layer_layout.py; SCH:1133-1153).
    c.require(sum(f in a for f in ("--num-layers-per-virtual-pipeline-stage", "--num-virtual-stages-per-pipeline-rank",
                                   "--pipeline-model-parallel-layout")) <= 1, "more than one virtual-pipeline flag")
    vpp, counts = None, None
    first, last = a.get("--decoder-first-pipeline-num-layers"), a.get("--decoder-last-pipeline-num-layers")
    acc_e = "--account-for-embedding-in-pipeline-split" in a
    acc_l = "--account-for-loss-in-pipeline-split" in a
    layout = a.get("--pipeline-model-parallel-layout")
    if layout is not None:
        # TC:1936-1953: the layout excludes every other pipeline-split argument.
        c.require(first is None and last is None and not acc_e and not acc_l,
                  "--pipeline-model-parallel-layout with other pipeline layout arguments")
        stages = parse_layout(layout, c)
        if c.require(len(stages) % pp == 0, f"layout of {len(stages)} stages not divisible by pp {pp}"):
            vpp = len(stages) // pp
            flat = [x for stage in stages for x in stage]   # layout[i], i = vpp_rank x pp + pp_rank, in order
            c.require(bool(flat) and flat[0] == "E" and flat[-1] == "L", "the layout must start with E and end with L")
            c.require(flat.count("E") == 1 and flat.count("L") == 1, "embedding and loss exactly once")
            c.require(flat.count("t") == layers, f"{flat.count('t')} decoder layers in the layout, the model {layers}")
            counts = [sum(stages[k * pp + r].count("t") for k in range(vpp)) for r in range(pp)]
    elif "--num-layers-per-virtual-pipeline-stage" in a:
        c.require(first is None and last is None, "uneven stages need --num-virtual-stages-per-pipeline-rank")
        if c.require((layers + acc_e + acc_l) % pp == 0, "layers % pp != 0"):
            per_stage = (layers + acc_e + acc_l) // pp
            if c.require(per_stage % a["--num-layers-per-virtual-pipeline-stage"] == 0, "per-stage layers % nlpvs"):
                vpp = per_stage // a["--num-layers-per-virtual-pipeline-stage"]
    elif "--num-virtual-stages-per-pipeline-rank" in a:
        vpp = a["--num-virtual-stages-per-pipeline-rank"]
    if vpp == 1:
        vpp = None
    if layout is not None:
        pass
    elif first is None and last is None:
        # Even split, the embedding and the loss optionally counted as layers (TC:2064-2109, A:951-964).
        num = (layers or 0) + acc_e + acc_l
        if c.require(num % pp == 0, f"Number of layers should be divisible by the pipeline-model-parallel size "
                     f"({layers} layers + {acc_e + acc_l} accounted, pp {pp})"):
            per_rank = num // pp
            if vpp:
                c.require(per_rank % vpp == 0, "layers per rank % vpp != 0 (TC:2098-2109)")
            chunk = per_rank // (vpp or 1)
            c.require(chunk - acc_e >= 0 and chunk - acc_l >= 0, "Not enough layers in the first / last virtual stage")
            counts = [per_rank] * pp
            counts[0] -= acc_e
            counts[-1] -= acc_l
    else:
        c.require(not acc_e and not acc_l, "uneven first / last stages with the embedding / loss accounting (TC:1923-1933)")
        rem_layers, rem_stages = layers, pp
        for value in (first, last):
            if value is None:
                continue
            c.require(value > 0, "uneven stage layers must be > 0 (TC:1997-1998)")
            if vpp:
                c.require(value % vpp == 0, "uneven stage layers % vpp != 0 (TC:2000-2030)")
            rem_layers -= value
            rem_stages -= 1
        c.require(bool(rem_layers) == bool(rem_stages), "remaining layers and stages must both be zero or not")
        middle = None
        if rem_stages > 0 and c.require(rem_layers % rem_stages == 0, f"{rem_layers} remaining layers on {rem_stages} stages"):
            middle = rem_layers // rem_stages
            if vpp:
                c.require(middle % vpp == 0, "middle stage layers % vpp != 0 (TC:2049-2062)")
        counts = [middle] * pp
        if first is not None:
            counts[0] = first
        if last is not None:
            counts[-1] = last
    if counts is not None and pp > 1:
        c.require(counts == plan["plan"]["stage_layers"], f"the ranks hold {counts} layers, ShardMeter costed "
                  f"{plan['plan']['stage_layers']}")
    c.require((vpp or 1) == plan["plan"]["interleave"], f"virtual stages {vpp or 1}, the plan "
              f"{plan['plan']['interleave']}")
    if vpp:
        c.require(pp > 1, "the interleaved schedule needs pp > 1 (A:966-975)")
        if micro and global_batch and global_batch % (micro * dp) == 0:
            m_b = global_batch // (micro * dp)
            c.require(m_b >= pp and m_b % pp == 0, f"{m_b} micro-batches with pp {pp} (SCH:1133-1153)")
    # Sequence parallelism, overlap, FSDP, precision, recompute.
    c.require("--tp-comm-overlap" not in a or "--sequence-parallel" in a, "--tp-comm-overlap needs --sequence-parallel")
    c.require(("--sequence-parallel" in a) == (plan["plan"]["sequence_parallel"] and tp > 1), "sequence parallelism")
    fsdp = "--use-megatron-fsdp" in a
    if "--overlap-param-gather" in a:
        c.require(("--use-distributed-optimizer" in a or fsdp) and "--overlap-grad-reduce" in a,
                  "--overlap-param-gather needs a distributed optimizer and --overlap-grad-reduce (A:990-995)")
    if fsdp:
        c.require(a.get("--ckpt-format") == "fsdp_dtensor", "Megatron-FSDP needs --ckpt-format fsdp_dtensor")
        c.require(env.get("CUDA_DEVICE_MAX_CONNECTIONS") != "1", "FSDP requires CUDA_DEVICE_MAX_CONNECTIONS > 1")
    if a.get("--ckpt-format") == "fsdp_dtensor":
        c.require(fsdp, "--ckpt-format fsdp_dtensor needs --use-megatron-fsdp (A:1620-1621)")
    # With --overlap-moe-expert-parallel-comm Megatron only warns (A:1426-1435).
    if (tp > 1 or cp > 1) and not fsdp and gpu not in BLACKWELL and "--overlap-moe-expert-parallel-comm" not in a:
        c.require(env.get("CUDA_DEVICE_MAX_CONNECTIONS") == "1", "TP / CP before Blackwell require "
                  "CUDA_DEVICE_MAX_CONNECTIONS=1 (A:1413-1439)")
    c.require(not ("--bf16" in a and "--fp16" in a), "--bf16 and --fp16 together (A:1172-1182)")
    granularity = a.get("--recompute-granularity")
    if granularity == "full":
        c.require("--recompute-method" in a and "--recompute-num-layers" in a, "full recompute needs method and layers")
        c.require(1 <= a.get("--recompute-num-layers", 0) <= (layers or 0) // pp, "recompute_num_layers out of range")
    if granularity == "selective":
        c.require("--recompute-method" not in a and "--recompute-num-layers" not in a, "selective takes no method")
    modules = set(a.get("--recompute-modules") or ["core_attn"]) if granularity == "selective" else set()  # TC:1763
    c.require(modules <= RECOMPUTE_MODULES, f"recompute modules {sorted(modules - RECOMPUTE_MODULES)} are not "
              "allowed (TC:1766-1783)")
    # What ShardMeter costed: selective = core attention; plan.moe_recompute adds moe_act or moe (docs/moe.md).
    moe_recompute = plan["plan"].get("moe_recompute") or "none"
    moe_module = {"none": set(), "activation": {"moe_act"}, "layer": {"moe"}}[moe_recompute]
    recompute = plan["plan"]["recompute"]
    if recompute == "full":
        c.require(granularity == "full", f"recompute {granularity}, the plan full")
        n = plan["plan"].get("recompute_layers", 0)
        if 0 < n < (layers or 0) // pp:   # docs/model.md §7.5: the first N of each stage, per virtual stage N / v
            v = a.get("--num-virtual-stages-per-pipeline-rank", 1)
            c.require(a.get("--recompute-method") == "block" and a.get("--recompute-num-layers") * v == n,
                      f"--recompute-method {a.get('--recompute-method')} / {a.get('--recompute-num-layers')}, the "
                      f"plan checkpoints {n} blocks per stage")
    elif recompute == "selective" or moe_module:
        expected_modules = ({"core_attn"} if recompute == "selective" else set()) | moe_module
        c.require(granularity == "selective" and modules == expected_modules,
                  f"recompute {granularity} {sorted(modules)}, the plan {recompute} + moe_recompute {moe_recompute}")
    else:
        c.require(granularity is None, f"recompute {granularity}, the plan none")
    check_moe(a, plan, c, world, tp, pp, cp, dp, gpu, env, modules)
    return c.failures


def check_moe(a, plan, c, world, tp, pp, cp, dp, gpu, env, modules):
    """validate_args' and TransformerConfig's MoE and MLA checks, and the plan's experts as ShardMeter costed them."""
    moe = plan["model"].get("moe")
    experts = a.get("--num-experts")
    ep = a.get("--expert-model-parallel-size", 1)
    etp = a.get("--expert-tensor-parallel-size", tp)                  # A:569-570
    if moe is None:
        c.require(experts is None and ep == 1, "expert flags on a dense plan")
        c.require("--multi-latent-attention" not in a or plan["model"].get("mla"), "MLA the plan does not have")
        return
    c.require((ep, etp) == (plan["plan"].get("ep", 1), plan["plan"].get("etp", 1)),
              f"ep {ep} / etp {etp}, the plan {plan['plan'].get('ep', 1)} / {plan['plan'].get('etp', 1)}")
    if ep > 1:   # A:1599-1603
        c.require(experts is not None, "num_experts must be non None to use expert model parallelism (A:1601)")
        c.require(experts is not None and experts % ep == 0,
                  f"Number of experts ({experts}) should be a multiple of expert model parallel_size ({ep}) (A:1602)")
    # parallel_state.py:874-884: the expert grid ETP x EP x PP divides the world; EDP is the rest.
    if c.require(world % (etp * ep * pp) == 0, f"world {world} % (etp {etp} x ep {ep} x pp {pp}) != 0 "
                 "(parallel_state.py:881-884)"):
        edp = world // (etp * ep * pp)
        c.require(edp == plan["job"].get("expert_data_parallel", edp),
                  f"expert data parallel {edp}, the plan {plan['job'].get('expert_data_parallel')}")
    c.require(experts == moe["experts"], f"--num-experts {experts}, the plan {moe['experts']}")
    c.require(a.get("--moe-router-topk", 2) == moe["top_k"], "--moe-router-topk differs from the plan's top-k")   # TC:739
    c.require(a.get("--moe-ffn-hidden-size", a.get("--ffn-hidden-size")) == moe["expert_ffn_hidden"],
              "--moe-ffn-hidden-size differs from the expert width (A:1595-1597 defaults it to ffn_hidden_size)")
    shared = a.get("--moe-shared-expert-intermediate-size")
    if shared is not None:
        c.require(shared > 0, "moe_shared_expert_intermediate_size must be > 0 (TC:1637-1643)")
    c.require((shared or 0) == moe["shared_experts"] * moe["shared_expert_ffn_hidden"],
              f"shared experts' width {shared}, the plan {moe['shared_experts']} x {moe['shared_expert_ffn_hidden']}")
    # Which blocks are MoE (gpt_layer_specs.py:643-661).
    freq, layers = a.get("--moe-layer-freq", 1), plan["model"]["layers"]
    if isinstance(freq, int):
        pattern = [1 if i % freq == 0 else 0 for i in range(layers)] if freq > 0 else []
    else:
        pattern = freq or []
        c.require(len(pattern) == layers, f"Invalid length of moe_layer_pattern: {len(pattern)}, expected {layers} "
                  "(gpt_layer_specs.py:652-656)")
    expected = [1 if i >= moe["dense_layers"] and (i - moe["dense_layers"]) % moe["moe_every"] == 0 else 0
                for i in range(layers)]
    c.require(pattern == expected, f"{sum(pattern)} MoE blocks in Megatron's pattern, the plan's "
              f"{moe['moe_layers']} (first {moe['dense_layers']} dense, then every {moe['moe_every']})")
    # Router (TC:787-795, 2284-2292) and dropping (TC:888, 1660-1684).
    score = a.get("--moe-router-score-function", "softmax")
    if "--moe-router-enable-expert-bias" in a:
        c.require(score in ("sigmoid", "sqrtsoftplus"), "expert bias needs a sigmoid or sqrtsoftplus score (TC:2284)")
    c.require(score == moe["router"], f"router score {score}, the plan's {moe['router']}")
    c.require(("--moe-router-enable-expert-bias" in a) == (moe["router"] == "sigmoid"),
              "the sigmoid router's per-expert bias (DeepSeek-V3's aux-loss-free balancing, which ShardMeter counts)")
    capacity = a.get("--moe-expert-capacity-factor")
    if capacity is not None and capacity >= 0:
        c.require(a.get("--moe-router-load-balancing-type", "aux_loss") in
                  ("aux_loss", "seq_aux_loss", "global_aux_loss", "none"),
                  "moe_expert_capacity_factor only works with aux_loss, seq_aux_loss, global_aux_loss or none load "
                  "balancing (TC:1660-1684)")
    c.require((capacity or 0) == moe["capacity_factor"], f"capacity factor {capacity}, the plan {moe['capacity_factor']}")
    mtp = a.get("--mtp-num-layers")
    if mtp:
        c.require(a.get("--position-embedding-type") in ("rope", "none"), "MTP needs rope or none (A:855-860)")
    c.require((mtp or 0) == moe["mtp_layers"], f"{mtp} MTP layers, the plan {moe['mtp_layers']}")
    # Grouped GEMM (A:1338-1340), the compute ShardMeter costs (docs/model.md §15).
    c.require("--moe-grouped-gemm" in a, "the plan is costed with grouped GEMMs: --moe-grouped-gemm")
    if "--moe-grouped-gemm" in a:
        c.require(COMPUTE_CAPABILITY.get(gpu, 0) >= 8, f"GroupedGEMM needs compute capability >= 8 ({gpu}, A:1340)")
    if "moe_act" in modules:
        c.require("--moe-grouped-gemm" in a, "moe_act in recompute_modules is only supported with moe_grouped_gemm "
                  "(TC:1784-1787)")
        c.require("--fp8-format" not in a, "delayed scaling does not support moe_act recompute for fp8 (TC:1822-1827)")
    # Biases (TC:2279-2282) and sequence parallelism with TP (moe_layer.py:629-633).
    if "--disable-bias-linear" not in a:
        c.require(etp == 1, "Bias in Moe is only supported when ETP==1 (TC:2279-2282)")
    if tp > 1:
        c.require("--sequence-parallel" in a, "MoE with tensor parallelism trains only with sequence parallelism "
                  "(moe_layer.py:629-633)")
    # Dispatcher (TC:862-869, 1589-1614; token_dispatcher.py:1769-1770). DeepEP casts non-fp32 router probs with a
    # warning (token_dispatcher.py:1303-1309): --moe-router-dtype fp32 is the export's choice, not a check.
    dispatcher = a.get("--moe-token-dispatcher-type", "allgather")
    backend = a.get("--moe-flex-dispatcher-backend", "deepep")
    c.require(dispatcher == {"alltoall": "alltoall", "deepep": "flex"}[plan["plan"]["ep_dispatcher"]],
              f"token dispatcher {dispatcher}, the plan {plan['plan']['ep_dispatcher']}")
    if dispatcher == "flex":
        c.require(backend == "deepep", f"flex backend {backend}, the plan deepep")
        c.require(etp * ep > 1, "DeepEP dispatcher requires TPxEP > 1 (token_dispatcher.py:1770)")
    else:
        c.require("--moe-flex-dispatcher-backend" not in a or backend != "ncclep", "ncclep needs flex (TC:1609-1614)")
    # Expert-parallel communication overlap (TC:2669-2713).
    overlap = "--overlap-moe-expert-parallel-comm" in a
    c.require(overlap == plan["plan"]["ep_overlap"], f"EP overlap {overlap}, the plan {plan['plan']['ep_overlap']}")
    if overlap:
        vpp = a.get("--num-virtual-stages-per-pipeline-rank") or a.get("--num-layers-per-virtual-pipeline-stage")
        if pp > 1:
            c.require(vpp is not None, "EP A2A overlap needs virtual_pipeline_model_parallel_size when pp > 1 "
                      "(TC:2670-2675)")
        c.require(ep > 1, "overlap_moe_expert_parallel_comm is only supported with expert model parallelism (TC:2681)")
        c.require(dispatcher in ("alltoall", "flex"), "overlap needs the alltoall or flex dispatcher (TC:2683-2686)")
        c.require(a.get("--recompute-granularity") != "full", "disable full recomputation with the overlap (TC:2688)")
        c.require("--recompute-method" not in a and "--recompute-num-layers" not in a,
                  "no recompute method or layers with the overlap (TC:2691-2696)")
        c.require("moe" not in modules, "disable moe in recompute_modules with the overlap (TC:2697-2699)")
        c.require("--bf16" in a or "--fp16" in a, "the overlap needs a bf16 or fp16 model (TC:2702-2704)")
        c.require((mtp or 0) <= 1, "MTP supports at most one layer with the overlap (TC:2709-2713)")
    # Multi-head latent attention (A:1892-1893; A:3380-3392).
    mla = plan["model"].get("mla")
    c.require(("--multi-latent-attention" in a) == (mla is not None), "multi-latent attention differs from the plan's")
    if "--multi-latent-attention" in a:
        c.require("--group-query-attention" not in a, "Group query attention is mutually exclusive with multi latent "
                  "attention (A:1892-1893)")
        got = (a.get("--q-lora-rank") or 0, a.get("--kv-lora-rank", 32), a.get("--qk-head-dim", 128),
               a.get("--qk-pos-emb-head-dim", 64), a.get("--v-head-dim", 128))
        want = (mla["q_lora_rank"], mla["kv_lora_rank"], plan["model"]["head_dim"], mla["rope_head_dim"],
                mla["v_head_dim"])
        c.require(got == want, f"MLA ranks and head dims {got}, the plan {want}")
