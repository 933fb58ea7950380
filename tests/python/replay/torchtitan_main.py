"""torchtitan main at pytorch/torchtitan@b5bcd76c66d0acb1a08b176d9639425bc55e0b2a (2026-08-21), after the TOML
removal (#2386): a run is a Python function returning Trainer.Config. The export is executed against stand-ins of
the classes it imports, written here from reading that commit: dataclasses with exactly the pinned fields
(kw_only, slots: an unknown keyword is a TypeError, an unknown attribute an AttributeError) and the __post_init__
checks; then the trainer's own checks run on the returned config. Short name TM = pytorch/torchtitan@b5bcd76.
"""
import sys
import types
from dataclasses import dataclass, field

from common import Checks, ceil_div, check_tokens_trained, check_warmup
from torchtitan_v0_2_2 import SCHEDULES, SINGLE, stage_layers


# TM:torchtitan/config/configs.py:35-116 (TrainingConfig), 119-300 (ParallelismConfig), 303-327 (CompileConfig).
@dataclass(kw_only=True, slots=True)
class TrainingConfig:
    num_tokens_per_microbatch_per_dp_rank: int = 16384
    num_tokens_per_train_step: int = -1
    max_context_length: int = 2048
    max_norm: float = 1.0
    steps: int = 10000
    enable_cpu_offload: bool = False
    disable_cuda_graphs: bool = False
    dtype: str = "float32"
    mixed_precision_param: str = "bfloat16"
    mixed_precision_reduce: str = "float32"
    gc_freq: int = 50
    gc_debug: bool = False

    def __post_init__(self):
        if self.num_tokens_per_microbatch_per_dp_rank <= 0:
            raise ValueError("num_tokens_per_microbatch_per_dp_rank must be greater than 0.")
        if self.num_tokens_per_train_step != -1 and self.num_tokens_per_train_step <= 0:
            raise ValueError("num_tokens_per_train_step must be -1 or greater than 0.")
        if self.max_context_length <= 0:
            raise ValueError("max_context_length must be greater than 0.")
        for name, allowed in (("dtype", {"bfloat16", "float32"}), ("mixed_precision_param", {"bfloat16", "float32"}),
                              ("mixed_precision_reduce", {"float32"})):
            if getattr(self, name) not in allowed:
                raise ValueError(f"{name} must be one of {sorted(allowed)}")


@dataclass(kw_only=True, slots=True)
class ParallelismConfig:
    data_parallel_replicate_degree: int = 1
    data_parallel_shard_degree: int = -1
    fsdp_reshard_after_forward: str = "default"
    enable_fsdp_symm_mem: bool = False
    tensor_parallel_degree: int = 1
    enable_sequence_parallel: bool = True
    spmd_backend: str = "spmd_types"
    pipeline_parallel_degree: int = 1
    module_fqns_per_model_part: list | None = None
    pipeline_parallel_first_stage_less_layers: int = 1
    pipeline_parallel_last_stage_less_layers: int = 1
    pipeline_parallel_layers_per_stage: int | None = None
    pipeline_parallel_schedule: str = "1F1B"
    pipeline_parallel_schedule_csv: str | None = ""
    num_pp_microbatches: int = 1
    context_parallel_degree: int = 1
    context_parallel_load_balancer: str | None = "headtail"
    context_parallel_ptrr_mask_key: str | None = None
    expert_parallel_degree: int = 1

    def __post_init__(self):
        if self.spmd_backend not in {"partial_dtensor", "spmd_types"}:
            raise ValueError("parallelism.spmd_backend must be either 'partial_dtensor' or 'spmd_types'.")
        if self.context_parallel_load_balancer == "":
            raise ValueError("context_parallel_load_balancer cannot be an empty string.")
        if self.fsdp_reshard_after_forward not in {"default", "always", "never"}:
            raise ValueError("fsdp_reshard_after_forward must be default, always or never")


@dataclass(kw_only=True, slots=True)
class CompileConfig:
    enable: bool = False
    enable_async_tensor_parallel: bool = False
    components: list = field(default_factory=lambda: ["model", "loss"])
    backend: str = "inductor"

    def __post_init__(self):
        if self.enable_async_tensor_parallel and not (self.enable and "model" in self.components):
            raise ValueError("Async TP requires 'model' in --compile.components and --compile.enable")


# TM:torchtitan/distributed/activation_checkpoint.py:112-210 (the Config classes; None disables AC, line 332-337).
class _AC:
    @dataclass(kw_only=True, slots=True)
    class Config:
        preserve_rng_state: bool = True
        determinism_check: str = "default"
        debug: bool = False


class FullAC(_AC):
    @dataclass(kw_only=True, slots=True)
    class Config(_AC.Config):
        pass


class SelectiveAC(_AC):
    @dataclass(kw_only=True, slots=True)
    class Config(_AC.Config):
        force_recompute_mm_shapes_by_fqns: list = field(default_factory=lambda: ["moe.router.gate"])


# TM:torchtitan/components/quantization/__init__.py (QuantizationConverter.Config) and float8.py:53-72.
class Float8LinearConverter:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_compile_enabled: bool = False
        recipe_name: str = "rowwise"
        filter_fqns: list = field(default_factory=list)
        emulate: bool = False


# TM:torchtitan/models/llama3/__init__.py: the flavors' shapes and model_registry(flavor, ..., converters).
FLAVORS = {"8B": (32, 4096, 32, 8), "70B": (80, 8192, 64, 8), "405B": (126, 16384, 128, 8)}


@dataclass
class ModelSpec:
    name: str
    flavor: str
    layers: int
    converters: list


def model_registry(flavor, attn_backend="flex", tp_gemm_backend="default", converters=None):
    if flavor not in FLAVORS:
        raise KeyError(flavor)
    return ModelSpec("llama3", flavor, FLAVORS[flavor][0], list(converters or []))


# TM:torchtitan/components/optimizer/lr_scheduler.py:25-60 (LRSchedulersContainer.Config).
class LRSchedulersContainer:
    @dataclass(kw_only=True, slots=True)
    class Config:
        warmup_steps: int = 200
        total_steps: object = None
        decay_ratio: object = None
        decay_type: str = "linear"
        min_lr_factor: float = 0.0


# TM:torchtitan/trainer.py:66-120 (Trainer.Config's fields; lr_scheduler at :100-102).
class Trainer:
    @dataclass(kw_only=True, slots=True)
    class Config:
        model_spec: object = None
        hf_assets_path: str = "./tests/assets/tokenizer"
        dump_folder: str = "./outputs"
        profiler: object = None
        metrics: object = None
        tokenizer: object = None
        dataloader: object = None
        optimizer: object = None
        lr_scheduler: LRSchedulersContainer.Config = field(default_factory=lambda: LRSchedulersContainer.Config())
        training: TrainingConfig = field(default_factory=TrainingConfig)
        parallelism: ParallelismConfig = field(default_factory=ParallelismConfig)
        checkpoint: object = None
        activation_checkpoint: object = field(default_factory=SelectiveAC.Config)
        compile: CompileConfig = field(default_factory=CompileConfig)
        comm: object = None
        validator: object = None
        debug: object = None
        override: object = None
        loss: object = None


# TM:torchtitan/models/llama3/config_registry.py:194-357: the recipes' model, training and parallelism.
def _recipe(flavor, tokens, tp, ac, compile_config=None, converters=None):
    return Trainer.Config(model_spec=model_registry(flavor, converters=converters),
                          training=TrainingConfig(num_tokens_per_microbatch_per_dp_rank=tokens,
                                                  max_context_length=8192, steps=1000),
                          parallelism=ParallelismConfig(tensor_parallel_degree=tp), activation_checkpoint=ac,
                          compile=compile_config or CompileConfig())


def llama3_8b():
    return _recipe("8B", 1 * 8192, 1, SelectiveAC.Config())


def llama3_70b():
    return _recipe("70B", 8 * 8192, 8, FullAC.Config())


def llama3_405b():
    compile_config = CompileConfig(enable=True, enable_async_tensor_parallel=True)
    return _recipe("405B", 2 * 8192, 8, FullAC.Config(), compile_config,
                   [Float8LinearConverter.Config(filter_fqns=["lm_head"], model_compile_enabled=True)])


def _install_stubs():
    modules = {
        "torchtitan": {},
        "torchtitan.config": {"TrainingConfig": TrainingConfig, "ParallelismConfig": ParallelismConfig,
                              "CompileConfig": CompileConfig},
        "torchtitan.distributed": {},
        "torchtitan.distributed.activation_checkpoint": {"FullAC": FullAC, "SelectiveAC": SelectiveAC},
        "torchtitan.components": {},
        "torchtitan.components.quantization": {"Float8LinearConverter": Float8LinearConverter},
        "torchtitan.models": {},
        "torchtitan.models.llama3": {"model_registry": model_registry},
        "torchtitan.models.llama3.config_registry": {"llama3_8b": llama3_8b, "llama3_70b": llama3_70b,
                                                     "llama3_405b": llama3_405b},
        "torchtitan.trainer": {"Trainer": Trainer},
    }
    for name, attributes in modules.items():
        module = types.ModuleType(name)
        module.__dict__.update(attributes)
        sys.modules[name] = module


def check(text, plan):
    c = Checks("torchtitan main@b5bcd76")
    _install_stubs()
    namespace = {"__name__": "shardmeter_export"}
    try:
        exec(compile(text, "export.py", "exec"), namespace)
        config = namespace["shardmeter_plan"]()
    except Exception as e:   # an unknown import, field or attribute, or a __post_init__ check
        c.require(False, f"the config function fails: {type(e).__name__}: {e}")
        return c.failures
    tr, par = config.training, config.parallelism
    layers = config.model_spec.layers
    c.require(layers == plan["model"]["layers"], f"the recipe's model has {layers} layers, the plan "
              f"{plan['model']['layers']}")
    seq = plan["model"]["seq_len"]
    c.require(tr.max_context_length == seq, "max_context_length != the plan's sequence length")
    c.require(tr.num_tokens_per_microbatch_per_dp_rank == plan["training"]["micro_batch"] * seq,
              "tokens per micro-batch != micro-batch x sequence")
    # ParallelDims._validate (TM:torchtitan/distributed/parallel_dims.py:166-195).
    world = plan["job"]["world_size"]
    dp_rep, dp_shard = par.data_parallel_replicate_degree, par.data_parallel_shard_degree
    tp, pp, cp = par.tensor_parallel_degree, par.pipeline_parallel_degree, par.context_parallel_degree
    for name, d in (("dp_replicate", dp_rep), ("cp", cp), ("tp", tp), ("pp", pp)):
        c.require(d >= 1, f"{name} degree {d} < 1")
    c.require(dp_shard == -1 or dp_shard >= 1, "dp_shard must -1 or >=1.")
    if dp_shard < 0:
        dp_shard = world // (dp_rep * cp * tp * pp)
    c.require(dp_rep * dp_shard * cp * tp * pp == world,
              f"Invalid parallel dims: {dp_rep} x {dp_shard} x {cp} x {tp} x {pp} != WORLD_SIZE({world})")
    c.require((tp, pp, cp) == (plan["plan"]["tp"], plan["plan"]["pp"], plan["plan"]["cp"]), "tp/pp/cp differ")
    c.require(par.enable_sequence_parallel == plan["plan"]["sequence_parallel"] or tp == 1, "sequence parallelism")
    # Trainer.__init__ (TM:torchtitan/trainer.py:296-309): tokens per micro-batch divisible by the SP / CP split.
    divisor = (tp if par.enable_sequence_parallel else 1) * (2 * cp if cp > 1 else 1)
    c.require(tr.num_tokens_per_microbatch_per_dp_rank % divisor == 0, f"tokens per micro-batch % {divisor} != 0")
    # CUDA graphs (on by default) refuse pipeline parallelism (trainer.py:171-176).
    if pp > 1:
        c.require(tr.disable_cuda_graphs, "CUDA graphs do not support pipeline parallelism yet")
    # Gradient accumulation (trainer.py:409-428).
    dp = dp_rep * dp_shard
    n_pp = par.num_pp_microbatches if pp > 1 else 1
    c.require(n_pp > 0, "parallelism.num_pp_microbatches must be greater than 0.")
    per_rank = tr.num_tokens_per_microbatch_per_dp_rank * n_pp
    per_step = tr.num_tokens_per_train_step if tr.num_tokens_per_train_step >= 0 else per_rank * dp
    c.require(per_step == plan["training"]["global_batch"] * seq, "tokens per step != global batch x sequence")
    check_tokens_trained(c, tr.steps, per_step, plan, "TrainingConfig.steps")
    check_warmup(c, config.lr_scheduler.warmup_steps, per_step, plan, "lr_scheduler.warmup_steps")
    if c.require(per_step % (per_rank * dp) == 0, "num_tokens_per_train_step not divisible by one iteration's tokens"):
        accumulation = per_step // (per_rank * dp)
        expected = 1 if pp > 1 else plan["job"]["gradient_accumulation_steps"]
        c.require(accumulation == expected, f"{accumulation} gradient accumulation steps, the plan {expected}")
    if pp > 1:
        c.require(n_pp == plan["job"]["gradient_accumulation_steps"], "num_pp_microbatches != the plan's micro-batches")
        schedule = par.pipeline_parallel_schedule.lower()
        c.require(schedule in SCHEDULES, f"unknown schedule {schedule}")
        single = schedule in SINGLE
        first, last = par.pipeline_parallel_first_stage_less_layers, par.pipeline_parallel_last_stage_less_layers
        # _get_pipeline_metadata (TM:torchtitan/distributed/pipeline_parallel.py:194-264).
        if par.pipeline_parallel_layers_per_stage is not None:
            stages = ceil_div(layers + first + last, par.pipeline_parallel_layers_per_stage)
            if not c.require(stages % pp == 0, f"{stages} virtual stages not divisible by pp {pp}"):
                return c.failures
            per_rank_stages = stages // pp
            c.require(per_rank_stages == 1 if single else per_rank_stages >= 2, "stages per rank for the schedule")
        else:
            per_rank_stages = 1 if single else 2
            stages = pp * per_rank_stages
        c.require(per_rank_stages == plan["plan"]["interleave"], "stages per rank != the plan's interleave")
        try:   # _generate_llm_fqn_per_model_part (pipeline_parallel.py:357-467), the same split as v0.2.2
            counts = stage_layers(stages, layers, first, last)
            ranks = [sum(counts[r::pp]) for r in range(pp)]
            c.require(ranks == plan["plan"]["stage_layers"], f"the ranks hold {ranks} layers, ShardMeter costed "
                      f"{plan['plan']['stage_layers']}")
        except ValueError as e:
            c.require(False, f"pipeline split: {e}")
    ac = config.activation_checkpoint
    # selective (Megatron's core attention) is what FlashAttention already recomputes; op_selective is SelectiveAC.
    expected_ac = {"none": type(None), "selective": type(None), "full": FullAC.Config,
                   "op_selective": SelectiveAC.Config}[plan["plan"]["recompute"]]
    c.require(type(ac) is expected_ac, f"activation_checkpoint {type(ac).__name__}, the plan recomputes "
              f"{plan['plan']['recompute']}")
    fp8 = any(isinstance(x, Float8LinearConverter.Config) for x in config.model_spec.converters)
    c.require(fp8 == (plan["training"]["precision"] == "fp8"), "float8 converter vs the plan's precision")
    c.require(not (config.compile.enable_async_tensor_parallel and not config.compile.enable), "async TP needs compile")
    return c.failures
