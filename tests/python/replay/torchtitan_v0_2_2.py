"""torchtitan v0.2.2 (pytorch/torchtitan@73a0e6979dd10b6b1904098eb3c8f62c18ab87ce, 2026-02-20): the checks its
TOML loading, ParallelDims, trainer and pipeline split run on a job config, replayed on ShardMeter's TOML export.
Short name TT = pytorch/torchtitan@v0.2.2.
"""
import tomllib

from common import Checks, ceil_div, check_tokens_trained, check_warmup

# JobConfig sections and fields (TT:torchtitan/config/job_config.py, dataclasses Job .. Debug, JobConfig at 999-1024).
FIELDS = {
    "job": {"config_file", "dump_folder", "description", "print_config", "save_config_file", "custom_config_module"},
    "model": {"name", "flavor", "hf_assets_path", "tokenizer_path", "converters", "print_after_conversion"},
    "training": {"dataset", "dataset_path", "local_batch_size", "global_batch_size", "seq_len", "max_norm", "steps",
                 "enable_cpu_offload", "dtype", "mixed_precision_param", "mixed_precision_reduce", "gc_freq",
                 "gc_debug", "dataloader"},
    "parallelism": {"data_parallel_replicate_degree", "data_parallel_shard_degree", "fsdp_reshard_after_forward",
                    "tensor_parallel_degree", "disable_loss_parallel", "enable_async_tensor_parallel",
                    "pipeline_parallel_degree", "module_fqns_per_model_part",
                    "pipeline_parallel_first_stage_less_layers", "pipeline_parallel_last_stage_less_layers",
                    "pipeline_parallel_layers_per_stage", "pipeline_parallel_schedule",
                    "pipeline_parallel_schedule_csv", "pipeline_parallel_microbatch_size",
                    "pipeline_parallel_expert_parallel_overlap", "context_parallel_degree",
                    "context_parallel_load_balancer", "context_parallel_rotate_method", "expert_parallel_degree",
                    "expert_tensor_parallel_degree", "expert_parallel_comm_backend"},
    "activation_checkpoint": {"mode", "selective_ac_option", "per_op_sac_force_recompute_mm_shapes_by_fqns",
                              "early_stop", "memory_budget", "visualize_memory_budget_pareto", "preserve_rng_state",
                              "determinism_check", "debug"},
    "fault_tolerance": {"enable", "process_group", "process_group_timeout_ms", "replica_id", "group_size",
                        "min_replica_size", "semi_sync_method"},
}
OTHER_SECTIONS = {"profiling", "metrics", "optimizer", "lr_scheduler", "checkpoint", "compile", "quantize", "comm",
                  "memory_estimation", "experimental", "validation", "debug"}
# Fields the custom config module adds (TT:torchtitan/components/ft/config/job_config.py:18-70).
FT_MODULE = "torchtitan.components.ft.config"
FT_FIELDS = {"sync_steps", "should_quantize", "fragment_sync_delay", "fragment_update_alpha",
             "module_fqns_per_model_fragment", "num_fragments"}
# Integer fields we emit (the loader passes values unchecked, TT:config/manager.py:173-181; the dataclass says int).
INTS = {("training", "local_batch_size"), ("training", "global_batch_size"), ("training", "seq_len"),
        ("training", "steps"), ("parallelism", "data_parallel_replicate_degree"),
        ("parallelism", "data_parallel_shard_degree"), ("parallelism", "tensor_parallel_degree"),
        ("parallelism", "pipeline_parallel_degree"), ("parallelism", "pipeline_parallel_microbatch_size"),
        ("parallelism", "pipeline_parallel_layers_per_stage"),
        ("parallelism", "pipeline_parallel_first_stage_less_layers"),
        ("parallelism", "pipeline_parallel_last_stage_less_layers"), ("parallelism", "context_parallel_degree"),
        ("fault_tolerance", "group_size"), ("fault_tolerance", "sync_steps"),
        ("fault_tolerance", "fragment_sync_delay"), ("fault_tolerance", "num_fragments"),
        ("parallelism", "expert_parallel_degree"), ("parallelism", "expert_tensor_parallel_degree")}
LITERALS = {("training", "mixed_precision_param"): {"bfloat16", "float32"},
            ("parallelism", "fsdp_reshard_after_forward"): {"default", "always", "never"},
            ("parallelism", "expert_parallel_comm_backend"): {"standard", "deepep"},
            ("activation_checkpoint", "mode"): {"selective", "full", "memory_budget", "none"}}
# PyTorch 2.6 get_schedule_class (torch/distributed/pipelining/schedules.py:2361-2384), case-insensitive; torchtitan
# v0.2.2 also knows DualPipeV (distributed/pipeline_parallel.py:216-219).
SCHEDULES = {"1f1b", "interleaved1f1b", "gpipe", "loopedbfs", "interleavedzerobubble", "pipelineschedulesingle",
             "pipelineschedulemulti", "zbvzerobubble", "dualpipev"}
SINGLE = {"1f1b", "gpipe", "pipelineschedulesingle"}
V_STYLE = {"zbvzerobubble", "dualpipev"}
# Model converters registered at v0.2.2 (components/quantization/float8.py:238-239, mx.py:171-172).
CONVERTERS = {"quantize.linear.float8", "quantize.grouped_mm.float8", "quantize.linear.mx", "quantize.grouped_mm.mx"}
# llama3 flavors' layers and the longest sequence (models/llama3/__init__.py:30-100, model/args.py:28-55).
LLAMA3_LAYERS = {"8B": 32, "70B": 80, "405B": 126}
MAX_SEQ_LEN = 131072
# MoE flavors (layers, experts, top-k, shared experts, expert width, dense layers): models/qwen3/__init__.py:145-192,
# models/deepseek_v3/__init__.py:130-156. Their update_from_config only warns above max_seq_len
# (qwen3/model/args.py:49-55, deepseek_v3/model/args.py:87-92).
MOE_FLAVORS = {("qwen3", "30B-A3B"): (48, 128, 8, 0, 768, 0), ("qwen3", "235B-A22B"): (94, 128, 8, 0, 1536, 0),
               ("deepseek_v3", "671B"): (61, 256, 8, 1, 2048, 3)}


def stage_layers(num_stages, layers, input_weight, output_weight):
    """Transformer blocks per virtual stage, as generate_llm_fqn_per_model_part splits them
    (distributed/pipeline_parallel.py:236-344); raises ValueError where it does."""
    if num_stages < 1:
        raise ValueError("Number of stages must be at least 1")
    if num_stages == 1:
        return [layers]
    effective = layers + input_weight + output_weight
    if num_stages > effective:
        raise ValueError(f"Number of stages ({num_stages}) cannot be greater than effective layers ({effective})")
    base, extra = divmod(effective, num_stages)
    if base == 0:
        raise ValueError("Configuration would result in empty stages")
    if input_weight > base:
        raise ValueError(f"input_weight ({input_weight}) exceeds minimum layers per stage ({base})")
    if output_weight > base:
        raise ValueError(f"output_weight ({output_weight}) exceeds minimum layers per stage ({base})")
    counts, current = [], 0
    for i in range(num_stages):
        n = base + (1 if i < extra else 0)
        if i == 0:
            n -= input_weight
        elif i == num_stages - 1:
            n -= output_weight
        n = max(0, min(n, layers - current))
        counts.append(n)
        current += n
    return counts


def check(text, plan):
    c = Checks("torchtitan v0.2.2")
    try:
        toml = tomllib.loads(text)   # TT:config/manager.py:80-84
    except tomllib.TOMLDecodeError as e:
        c.require(False, f"TOML does not parse: {e}")
        return c.failures
    job = toml.get("job", {})
    custom = job.get("custom_config_module", "")
    # Unknown sections and fields are a ValueError (TT:config/manager.py:165-171), the custom module's merged in.
    for section, values in toml.items():
        if section in OTHER_SECTIONS:
            continue
        if not c.require(section in FIELDS, f"unknown section [{section}]"):
            continue
        allowed = FIELDS[section] | (FT_FIELDS if section == "fault_tolerance" and custom == FT_MODULE else set())
        for key, value in values.items():
            c.require(key in allowed, f"[{section}] {key} is not a field of JobConfig"
                      + (" (it needs job.custom_config_module = torchtitan.components.ft.config)" if key in FT_FIELDS
                         else ""))
            if (section, key) in INTS:
                c.require(isinstance(value, int) and not isinstance(value, bool), f"[{section}] {key} is not an int")
            if (section, key) in LITERALS:
                c.require(value in LITERALS[(section, key)], f"[{section}] {key} = {value!r} is not one of "
                          f"{sorted(LITERALS[(section, key)])}")
    training, par = toml.get("training", {}), toml.get("parallelism", {})
    ac, ft, model = toml.get("activation_checkpoint", {}), toml.get("fault_tolerance", {}), toml.get("model", {})

    # The model: a registered flavor whose layers are the plan's (models/llama3/__init__.py).
    layers = plan["model"]["layers"]
    moe = plan["model"].get("moe")
    if "flavor" in model and (model.get("name"), model["flavor"]) in MOE_FLAVORS:
        f = MOE_FLAVORS[(model["name"], model["flavor"])]
        c.require(moe is not None and f == (plan["model"]["layers"], moe["experts"], moe["top_k"],
                                            moe["shared_experts"], moe["expert_ffn_hidden"], moe["dense_layers"]),
                  f"{model['name']} {model['flavor']} {f} is not the plan's model")
        c.require(not (model["name"] == "deepseek_v3" and toml.get("parallelism", {}).get("context_parallel_degree", 1)
                       > 1), "Context Parallel only supports SDPA attention (deepseek_v3/model/args.py:101-109)")
    elif "flavor" in model:
        c.require(moe is None, "an MoE plan on a dense flavor")
        c.require(model.get("name") in ("llama3", "llama3_ft"), f"model.name {model.get('name')!r}")
        c.require(model["flavor"] in LLAMA3_LAYERS, f"model.flavor {model['flavor']!r} is not a llama3 flavor")
        layers = LLAMA3_LAYERS.get(model["flavor"], layers)
        c.require(layers == plan["model"]["layers"], f"flavor {model['flavor']} has {layers} layers, the plan "
                  f"{plan['model']['layers']}")
    seq_len = training.get("seq_len", 2048)
    c.require(seq_len == plan["model"]["seq_len"], f"seq_len {seq_len} != the plan's {plan['model']['seq_len']}")
    c.require(seq_len <= MAX_SEQ_LEN, "seq_len above the model's max_seq_len (model/args.py:50-55)")
    for name in model.get("converters", []):   # TT:protocols/model_converter.py:61-63, a plain dict lookup
        c.require(name in CONVERTERS, f"model.converters {name!r} is not registered (KeyError)")

    # ParallelDims._validate (TT:distributed/parallel_dims.py:45-56).
    world = plan["job"]["world_size"]
    dp_rep = par.get("data_parallel_replicate_degree", 1)
    dp_shard = par.get("data_parallel_shard_degree", -1)
    cp, tp, pp = par.get("context_parallel_degree", 1), par.get("tensor_parallel_degree", 1), \
        par.get("pipeline_parallel_degree", 1)
    for name, d in (("dp_replicate", dp_rep), ("cp", cp), ("tp", tp), ("pp", pp)):
        c.require(d >= 1, f"{name} degree {d} < 1")
    c.require(dp_shard == -1 or dp_shard >= 1, "dp_shard must be -1 or >= 1")
    if dp_shard < 0:
        dp_shard = world // (dp_rep * cp * tp * pp)
    c.require(dp_rep * dp_shard * cp * tp * pp == world,
              f"dp_replicate {dp_rep} x dp_shard {dp_shard} x cp {cp} x tp {tp} x pp {pp} != WORLD_SIZE {world}")
    c.require((tp, pp, cp) == (plan["plan"]["tp"], plan["plan"]["pp"], plan["plan"]["cp"]),
              f"tp/pp/cp {tp}/{pp}/{cp} differ from the plan's")
    c.require(dp_rep * dp_shard == plan["job"]["data_parallel"], "dp_replicate x dp_shard != the plan's replicas")
    # Experts (parallel_dims.py:45-46, 58-59, 136-157, 190-210): degrees >= 1, ETP = TP or 1 with EP, and the sparse
    # mesh pp x dp_replicate x efsdp x ep x etp over the world, efsdp = dp_shard x cp x tp / (etp x ep).
    ep, etp = par.get("expert_parallel_degree", 1), par.get("expert_tensor_parallel_degree", 1)
    c.require(ep >= 1 and etp >= 1, "expert degrees must be >= 1")
    if ep > 1:
        c.require(etp in (tp, 1), "Currently we only support ETP=TP or ETP=1 (parallel_dims.py:58-59)")
    fsdp = dp_shard * cp
    if c.require((fsdp * tp) % (etp * ep) == 0, f"efsdp = dp_shard x cp x tp / (etp x ep) = {fsdp * tp}/{etp * ep} "
                 "is not whole: the sparse mesh cannot be unflattened (parallel_dims.py:136-157)"):
        efsdp = fsdp * tp // (etp * ep)
        c.require(pp * dp_rep * efsdp * ep * etp == world, "the sparse mesh does not cover the world")
    if moe is not None:
        c.require(ep == plan["plan"]["ep"], f"expert_parallel_degree {ep}, the plan's ep {plan['plan']['ep']}")
        # With EP 1 the experts are sharded by the dense TP (job_config.py:464-472: etp has no effect).
        c.require((etp if ep > 1 else tp) == plan["plan"]["etp"],
                  f"expert tensor parallelism {etp if ep > 1 else tp}, the plan's etp {plan['plan']['etp']}")
        c.require(moe["experts"] % ep == 0, f"{moe['experts']} experts on ep {ep}")
        backend = par.get("expert_parallel_comm_backend", "standard")
        c.require(backend in ("standard", "deepep"), f"expert_parallel_comm_backend {backend!r}")
        c.require(backend == {"alltoall": "standard", "deepep": "deepep"}[plan["plan"]["ep_dispatcher"]],
                  f"expert_parallel_comm_backend {backend}, the plan's dispatcher {plan['plan']['ep_dispatcher']}")
    else:
        c.require(ep == 1, "expert parallelism on a dense plan")
    # models/llama3/infra/parallelize.py:69-74: seq_len % (tp x 2 x cp) == 0 (parallel_dims.py:365-372).
    c.require(seq_len % (tp * cp * 2) == 0, f"seq_len {seq_len} not divisible by tp x 2 x cp = {tp * cp * 2}")
    # parallelize.py:148-151: no FSDP (dp_shard = 1, cp = 1) and replication = DDP, which spans the world only.
    if dp_shard == 1 and cp == 1 and dp_rep > 1:
        c.require(dp_rep == world, "DDP has not supported > 1D parallelism (dp_replicate < world)")
    c.require(par.get("context_parallel_load_balancer", "headtail") != "", "context_parallel_load_balancer is ''")

    # Fault tolerance / DiLoCo (components/ft/manager.py:48-56, 82-86, 134-169; job_config.py:886-893).
    groups = 1
    if ft.get("enable", False):
        groups = ft.get("group_size", 0)
        c.require(ft.get("process_group", "gloo") in ("gloo", "nccl"), "fault_tolerance.process_group")
        method = ft.get("semi_sync_method")
        c.require(method is None or method.lower() in ("diloco", "local_sgd"), f"semi_sync_method {method!r}")
        c.require(dp_rep == 1, "with TorchFT data_parallel_replicate_degree should be 1 (HSDP over replica groups)")
        c.require(groups == plan["job"]["jobs"], f"group_size {groups} != the plan's {plan['job']['jobs']} islands")
        diloco = plan["plan"].get("diloco", {})
        c.require(ft.get("sync_steps", 5) == diloco.get("inner_steps"), "sync_steps != the plan's H")
        c.require(ft.get("num_fragments", 1) == diloco.get("fragments", 1), "num_fragments != the plan's fragments")
        c.require(ft.get("should_quantize", False) == (diloco.get("outer_bits") == 8), "should_quantize")
    else:
        c.require(plan["job"]["jobs"] == 1, "a DiLoCo plan without [fault_tolerance] enable = true")

    # Batch (train.py:98-102, 196-215; under TorchFT experiments/ft/train.py:74-75, 165-184).
    local = training.get("local_batch_size", 8)
    degree = (dp_rep * dp_shard if dp_rep > 1 or dp_shard > 1 else 1) * max(groups, 1)
    global_batch = training.get("global_batch_size", -1)
    if global_batch < 0:
        global_batch = local * degree
    c.require(global_batch > 0, "global_batch_size <= 0")
    c.require(global_batch == plan["training"]["global_batch"], "global_batch_size != the plan's global batch")
    # Run length: `steps` optimizer steps of global_batch_size sequences (under TorchFT over every replica group).
    check_tokens_trained(c, training.get("steps"), global_batch * training.get("seq_len", 2048), plan, "training.steps")
    # Warm-up (TT:config/job_config.py LRScheduler.warmup_steps, default 200).
    lr = toml.get("lr_scheduler", {})
    c.require(set(lr) <= {"warmup_steps", "total_steps", "decay_ratio", "decay_type", "min_lr_factor"},
              "[lr_scheduler] has a field LRScheduler does not")
    check_warmup(c, lr.get("warmup_steps"), global_batch * training.get("seq_len", 2048), plan,
                 "lr_scheduler.warmup_steps")
    if c.require(global_batch % (local * degree) == 0,
                 f"global_batch_size {global_batch} not divisible by local {local} x batch degree {degree}"):
        accumulation = global_batch // (local * degree)
        c.require(accumulation >= 1, "gradient accumulation steps < 1")
        expected = 1 if pp > 1 else plan["job"]["gradient_accumulation_steps"]
        c.require(accumulation == expected, f"{accumulation} gradient accumulation steps, the plan {expected}")

    # Pipeline (distributed/pipeline_parallel.py:55-121, 158-233, 451-471).
    if pp > 1:
        micro = par.get("pipeline_parallel_microbatch_size", 1)
        if c.require(local % micro == 0, "local_batch_size % pipeline_parallel_microbatch_size != 0"):
            n_mb = local // micro
            c.require(n_mb == plan["job"]["gradient_accumulation_steps"],
                      f"{n_mb} pipeline micro-batches, the plan {plan['job']['gradient_accumulation_steps']}")
        schedule = par.get("pipeline_parallel_schedule", "1F1B").lower()
        c.require(schedule in SCHEDULES, f"unknown pipeline schedule {schedule}")
        single = schedule in SINGLE
        first = par.get("pipeline_parallel_first_stage_less_layers", 1)
        last = par.get("pipeline_parallel_last_stage_less_layers", 1)
        lps = par.get("pipeline_parallel_layers_per_stage")
        if lps is not None:
            stages = ceil_div(layers + first + last, lps)
            if not c.require(stages % pp == 0, f"{stages} virtual stages not divisible by pp {pp}"):
                return c.failures
            per_rank = stages // pp
            c.require(per_rank == 1 if single else per_rank >= 2,
                      f"{per_rank} stages per rank with schedule {schedule}")
        else:
            per_rank = 1 if single else 2
            stages = pp * per_rank
        c.require(per_rank == plan["plan"]["interleave"], f"{per_rank} stages per rank, the plan interleaves "
                  f"{plan['plan']['interleave']}")
        if schedule in V_STYLE:
            c.require(per_rank == 2, "V-style schedules need 2 stages per rank")
        if schedule == "interleaved1f1b" and local % micro == 0:   # torch 2.6 schedules.py:1927-1934
            n_mb = local // micro
            rounds = max(1, n_mb // pp)
            c.require(n_mb % rounds == 0, f"Interleaved1F1B: {n_mb} micro-batches not divisible by {rounds} rounds")
        if "module_fqns_per_model_part" not in par:
            try:
                counts = stage_layers(stages, layers, first, last)
                c.require(sum(counts) == layers, f"the split places {sum(counts)} of {layers} layers")
                # Each rank holds stages r, r + pp, ... (loop style): every rank as the plan was costed.
                ranks = [sum(counts[r::pp]) for r in range(pp)]
                c.require(ranks == plan["plan"]["stage_layers"], f"the ranks hold {ranks} layers, ShardMeter costed "
                          f"{plan['plan']['stage_layers']}")
            except ValueError as e:
                c.require(False, f"pipeline split: {e}")

    # Activation checkpointing (distributed/activation_checkpoint.py:167-183).
    if ac.get("mode", "selective") == "selective":
        option = ac.get("selective_ac_option", "2")
        c.require(option == "op" or option.isdigit(), f"selective_ac_option {option!r}")
    # What ShardMeter costed (docs/model.md §7.5): selective = Megatron's core attention, which FlashAttention
    # already recomputes (so nothing); op_selective = the per-op policy; full with recompute_layers N = every k-th
    # of a stage's blocks (selective_ac_option = k, _apply_layer_sac: `_layer_sac_count % ac_freq == 0`).
    recompute, mode = plan["plan"]["recompute"], ac.get("mode", "selective")
    option = ac.get("selective_ac_option", "2")
    stage = ceil_div(plan["model"]["layers"], plan["plan"]["pp"])
    n = plan["plan"].get("recompute_layers", 0)
    if recompute == "full" and 0 < n < stage:
        c.require(mode == "selective" and option.isdigit() and int(option) > 0 and stage // int(option) == n
                  and stage % int(option) == 0, f"activation_checkpoint {mode} / {option!r}, the plan "
                  f"checkpoints {n} of {stage} blocks per stage")
    else:
        expected = {"none": ("none", None), "selective": ("none", None), "full": ("full", None),
                    "op_selective": ("selective", "op")}[recompute]
        c.require(mode == expected[0] and (expected[1] is None or option == expected[1]),
                  f"activation_checkpoint {mode} / {option!r}, the plan recomputes {recompute}")
    # FSDP resharding (models/llama3/infra/parallelize.py apply_fsdp: "default" = not pp_enabled).
    if plan["plan"]["sharding"] in ("fsdp", "hsdp"):
        policy = par.get("fsdp_reshard_after_forward", "default")
        reshard = {"always": True, "never": False, "default": plan["plan"]["pp"] == 1}[policy]
        c.require(reshard == plan["plan"].get("reshard_after_forward", True), f"fsdp_reshard_after_forward "
                  f"{policy}, the plan reshard_after_forward {plan['plan'].get('reshard_after_forward', True)}")
    return c.failures
