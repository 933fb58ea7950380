"""DeepSpeed v0.16.4 (deepspeedai/DeepSpeed@e2dc3eeb1923073e32739596a4fd051417d4ff92): the config loading, batch
arithmetic and engine checks, replayed on ShardMeter's DeepSpeed JSON export. CFG = deepspeed/runtime/config.py,
ZC = deepspeed/runtime/zero/config.py, ENG = deepspeed/runtime/engine.py, PIPE = deepspeed/runtime/pipe/engine.py,
TPC = deepspeed/runtime/tensor_parallel/config.py, all at that tag.
"""
import json

from common import Checks, check_tokens_trained, check_warmup

# DeepSpeedZeroConfig fields and aliases (ZC:86-347); pydantic extra="forbid" (runtime/config_utils.py:105-110).
ZERO_KEYS = {"stage", "contiguous_gradients", "reduce_scatter", "reduce_bucket_size", "use_multi_rank_bucket_allreduce",
             "allgather_partitions", "allgather_bucket_size", "overlap_comm", "load_from_fp32_weights",
             "elastic_checkpoint", "offload_param", "offload_optimizer", "sub_group_size", "cpu_offload_param",
             "cpu_offload_use_pin_memory", "cpu_offload", "prefetch_bucket_size", "stage3_prefetch_bucket_size",
             "param_persistence_threshold", "stage3_param_persistence_threshold", "model_persistence_threshold",
             "stage3_model_persistence_threshold", "max_live_parameters", "stage3_max_live_parameters",
             "max_reuse_distance", "stage3_max_reuse_distance", "gather_16bit_weights_on_model_save",
             "stage3_gather_16bit_weights_on_model_save", "module_granularity_threshold",
             "stage3_module_granularity_threshold", "use_all_reduce_for_fetch_params",
             "stage3_use_all_reduce_for_fetch_params", "stage3_gather_fp16_weights_on_model_save",
             "ignore_unused_parameters", "legacy_stage1", "round_robin_gradients", "zero_hpz_partition_size",
             "zero_quantized_weights", "zero_quantized_nontrainable_weights", "zero_quantized_gradients",
             "zeropp_loco_param", "mics_shard_size", "mics_hierarchical_params_gather", "memory_efficient_linear",
             "pipeline_loading_checkpoint", "override_module_apply", "log_trace_cache_warnings"}
# TPTrainingConfig (TPC:38-75).
TP_KEYS = {"dtype", "autotp_size", "tensor_parallel", "tp", "injection_policy_tuple", "keep_module_on_host",
           "replace_with_kernel_inject", "kernel_inject"}
PIPELINE_KEYS = {"stages", "partition", "seed_layers", "activation_checkpoint_interval", "pipe_partitioned",
                 "grad_partitioned"}   # CFG:460-473


def no_duplicates(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        raise ValueError(f"duplicate keys {keys}")   # CFG:714, dict_raise_error_on_duplicate_keys
    return dict(pairs)


def check(text, plan):
    c = Checks("DeepSpeed v0.16.4")
    try:
        j = json.loads(text, object_pairs_hook=no_duplicates)
    except ValueError as e:
        c.require(False, f"config does not load: {e}")
        return c.failures
    # Run length: carried for the training loop (DeepSpeed's config has none).
    check_tokens_trained(c, j.get("shardmeter_train_steps"), plan["training"]["global_batch"] * plan["model"]["seq_len"],
                         plan, "shardmeter_train_steps")
    check_warmup(c, j.get("shardmeter_warmup_steps"), plan["training"]["global_batch"] * plan["model"]["seq_len"],
                 plan, "shardmeter_warmup_steps")
    zero = j.get("zero_optimization", {})
    for key in zero:
        c.require(key in ZERO_KEYS, f"zero_optimization.{key} is not a field (extra=forbid)")
    tp_section = j.get("tensor_parallel", {})
    for key in tp_section:
        c.require(key in TP_KEYS, f"tensor_parallel.{key} is not a field (extra=forbid)")
    pipe = j.get("pipeline")
    for key in (pipe or {}):
        c.require(key in PIPELINE_KEYS, f"pipeline.{key} is not read")
    c.require(not (j.get("bf16", {}).get("enabled") and j.get("fp16", {}).get("enabled")), "bf16 and fp16 (CFG:834-835)")
    stage = zero.get("stage", 0)
    c.require(0 <= stage <= 3, f"ZeRO stage {stage} (CFG:1016-1019)")

    world = plan["job"]["world_size"]
    pp = pipe.get("stages", 1) if pipe else 1
    autotp = tp_section.get("autotp_size", 0)
    c.require((max(autotp, 1), pp, 1) == (plan["plan"]["tp"], plan["plan"]["pp"], plan["plan"]["cp"]),
              "AutoTP size / pipeline stages differ from the plan's tp / pp")
    # The data-parallel world DeepSpeed divides by: the pipeline grid's with a PipelineModule (INIT:206-208), else
    # dist.get_world_size() (CFG:723-733), AutoTP included.
    ds_world = world // pp if pipe else world
    c.require(world % pp == 0, "world % pipeline stages != 0 (runtime/pipe/module.py:174-177)")
    # Fill missing batch values as _set_batch_related_parameters does (CFG:936-979), then _batch_assertion (919-934).
    train, micro, gas = j.get("train_batch_size"), j.get("train_micro_batch_size_per_gpu"), \
        j.get("gradient_accumulation_steps")
    if train is not None and micro is not None and gas is None:
        gas = train // micro // ds_world
    elif train is not None and gas is not None and micro is None:
        micro = train // ds_world // gas
    elif micro is not None and gas is not None and train is None:
        train = micro * gas * ds_world
    elif train is not None and micro is None and gas is None:
        gas, micro = 1, train // ds_world
    elif micro is not None and train is None and gas is None:
        gas, train = 1, micro * ds_world
    if not c.require(train is not None and micro is not None, "neither train_batch_size nor micro batch (CFG:977-979)"):
        return c.failures
    c.require(train > 0 and micro > 0 and gas > 0, "batch values must be > 0")
    c.require(train == micro * gas * ds_world, f"train_batch_size {train} != {micro} x {gas} x {ds_world}")
    c.require(micro == plan["training"]["micro_batch"], "micro batch differs from the plan's")
    c.require(gas == plan["job"]["gradient_accumulation_steps"], f"{gas} accumulation steps, the plan "
              f"{plan['job']['gradient_accumulation_steps']}")
    # Samples: DeepSpeed's train batch counts each sample once per AutoTP rank.
    c.require(train == plan["training"]["global_batch"] * max(autotp, 1), "train batch vs the plan's global batch")
    if pipe:
        c.require(stage < 2, "ZeRO-2 and ZeRO-3 are incompatible with pipeline parallelism (PIPE:77-78)")
        interval = pipe.get("activation_checkpoint_interval", 0)
        c.require(isinstance(interval, int) and interval >= 0, "activation_checkpoint_interval")
    if autotp > 1:
        c.require(stage <= 2, "AutoTP with ZeRO-3 has not been validated (ENG:424-425)")
        c.require(world % autotp == 0, "world % autotp_size != 0")
    hpz = zero.get("zero_hpz_partition_size", 1)
    if hpz > 1:
        c.require(stage == 3 and world % hpz == 0, "hpZ needs stage 3 and groups dividing the world")
    mics = zero.get("mics_shard_size", -1)
    if mics > 0:
        c.require(stage == 3, "MiCS is a ZeRO-3 path (ENG:1674-1707)")
        c.require(world % mics == 0, "MiCS shard groups must cover the world (runtime/zero/mics_utils.py:83-86)")
        c.require(mics == plan["job"]["data_parallel_shard"], "MiCS shard size != the plan's shard group")
    expected_stage = {"none": 0, "zero1": 1, "zero2": 2, "fsdp": 3, "hsdp": 3}[plan["plan"]["sharding"]]
    c.require(stage == expected_stage, f"ZeRO stage {stage}, the plan shards {plan['plan']['sharding']}")
    c.require((mics > 0) == (plan["plan"]["sharding"] == "hsdp"), "hsdp is MiCS, MiCS only for hsdp")
    # DeepSpeed-MoE: the arguments of deepspeed.moe.layer.MoE the file carries for the model code.
    moe, layer = plan["model"].get("moe"), j.get("shardmeter_moe_layer")
    c.require((moe is None) == (layer is None), "an MoE plan needs shardmeter_moe_layer, a dense one none")
    if moe is not None and layer is not None:
        experts, ep, k = layer.get("num_experts"), layer.get("ep_size", 1), layer.get("k", 1)
        c.require(experts == moe["experts"] and k == moe["top_k"], "experts / k differ from the plan's")
        c.require(ep == plan["plan"]["ep"], f"ep_size {ep}, the plan's ep {plan['plan']['ep']}")
        c.require(isinstance(ep, int) and ep >= 1 and experts % ep == 0,
                  f"Number of experts ({experts}) should be divisible by expert parallel size ({ep}) (moe/layer.py:59)")
        c.require((world // pp) % ep == 0, f"ep_size {ep} must divide world / pp = {world // pp} "
                  "(utils/groups.py:250-258, _ensure_divisibility)")
        c.require(stage < 3, "MoE not supported with Stage 3 (runtime/engine.py:1675)")
        c.require(isinstance(k, int) and k >= 1, "k must be a positive int (TopKGate, moe/sharded_moe.py:513-523)")
        drops = layer.get("drop_tokens", True)
        c.require(drops == (moe["capacity_factor"] not in (None, 0)), "drop_tokens differs from the plan's capacity")
        if drops:
            c.require(layer.get("capacity_factor") == moe["capacity_factor"], "capacity_factor differs from the plan's")
        c.require(moe["shared_experts"] == 0, "deepspeed.moe.layer.MoE has no shared expert")
        c.require(moe["router"] == "softmax", "TopKGate scores with softmax")
        c.require(plan["plan"]["etp"] == 1, "DeepSpeed-MoE experts are not tensor-parallel in this export")
        c.require(layer.get("moe_blocks") == moe["moe_layers"], "MoE blocks differ from the plan's")
    return c.failures
