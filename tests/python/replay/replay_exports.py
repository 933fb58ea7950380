#!/usr/bin/python3
"""Replays each framework's own configuration checks on ShardMeter's exports, by the version each file names in its
`target:` header (docs/export.md, "Checked against the frameworks").

Usage:
  replay_exports.py cases DIR
      DIR holds <case>.plan.json and, per format, <case>.<format>.<ext> (replayed) or <case>.<format>.refused (the
      reason ShardMeter gave). Written by the hidden Catch2 test [export_fixture]. Then each bug of PLANTED is
      written into a copy of its case's file, and the replay must fail it: the checks can fail.
  replay_exports.py scenarios SHARDMETER SOURCE_DIR WORK_DIR
      Searches every shipped scenario that has a search: section (scenarios/*.yaml, scenarios/nightly/*.yaml) and
      exports every row of its front in every format: each export must pass the replay, or exit 2 naming what the
      format cannot express, and write nothing.
Exit status 0 when every check passes, 1 otherwise (one line per failure).
"""
import glob
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import deepspeed_v0_16_4  # noqa: E402
import megatron_core_v0_19_0  # noqa: E402
import plan_json_v2  # noqa: E402
import torchrun_v2_6_0  # noqa: E402
import torchtitan_main  # noqa: E402
import torchtitan_v0_2_2  # noqa: E402
from common import target_of  # noqa: E402

REPLAYS = {
    ("shardmeter-plan", "v2"): plan_json_v2,
    ("torchtitan", "v0.2.2"): torchtitan_v0_2_2,
    ("torchtitan", "main@b5bcd76c66d0"): torchtitan_main,
    ("Megatron-LM", "core_v0.19.0"): megatron_core_v0_19_0,
    ("DeepSpeed", "v0.16.4"): deepspeed_v0_16_4,
    ("PyTorch torchrun", "v2.6.0"): torchrun_v2_6_0,
}
FORMATS = {"plan-json": "json", "torchtitan": "toml", "torchtitan-py": "py", "megatron": "sh", "deepspeed": "json",
           "torchrun": "sh"}


def replay(path, plan):
    """Failures of the file at `path` against the checks of the version its header names."""
    with open(path) as f:
        text = f.read()
    target = target_of(text)
    if target is None:
        return [f"{path}: no `target:` header naming the framework version"]
    module = REPLAYS.get(target)
    if module is None:
        return [f"{path}: no replay for target {target[0]} {target[1]}"]
    return [f"{path}: {failure}" for failure in module.check(text, plan)]


# Bugs ShardMeter's exports had (issue 12), planted into good exports: (file, text, replaced by, what must fail).
PLANTED = [
    ("interleaved.torchtitan.toml", "pipeline_parallel_first_stage_less_layers = 0", "",
     "the embedding weighs 1 by default: ceil((96 + 1) / 8) = 13 stages, not 12"),
    ("405b-pp16.torchtitan.toml", "pipeline_parallel_first_stage_less_layers = 1",
     "pipeline_parallel_first_stage_less_layers = 9", "the embedding may weigh at most the 8 layers of a stage"),
    ("streaming-diloco.torchtitan.toml", 'custom_config_module = "torchtitan.components.ft.config"', "",
     "sync_steps and the other DiLoCo fields are unknown without the custom config module"),
    ("streaming-diloco.torchtitan.toml", "global_batch_size = 512", "global_batch_size = 256",
     "under TorchFT the global batch is over every replica group"),
    ("fp8.torchtitan.toml", '"quantize.linear.float8"', '"float8"', "v0.2.2 registers no converter named float8"),
    ("fp8.torchtitan-py.py", "num_pp_microbatches=", "num_pipeline_microbatches=",
     "ParallelismConfig has no such field"),
    ("405b-pp16-explicit.megatron.sh",
     "  --decoder-first-pipeline-num-layers 7\n  --decoder-last-pipeline-num-layers 7\n", "",
     "126 layers are not divisible by pp 16"),
    ("405b-pp16.megatron.sh", "  --account-for-embedding-in-pipeline-split\n", "",
     "126 + 1 accounted layers are not divisible by pp 16"),
    ("405b-pp16-balanced.megatron.sh", "t*7|t*7L", "t*8|t*6L", "the ranks hold other layers than the model costed"),
    ("405b-pp16-v8.torchtitan.toml", "pipeline_parallel_last_stage_less_layers = 1", "pipeline_parallel_last_stage_less_layers = 0",
     "ceil(127 / 1) = 127 virtual stages are not divisible by pp 16"),
    ("islands.megatron.sh", "export CUDA_DEVICE_MAX_CONNECTIONS=1", "",
     "tp 4 on H100 without Megatron-FSDP asserts CUDA_DEVICE_MAX_CONNECTIONS=1"),
    ("autotp.deepspeed.json", '"train_micro_batch_size_per_gpu"', '"train_batch_size": 1024,\n  "train_micro_batch_size_per_gpu"',
     "AutoTP: DeepSpeed divides by the whole world: 1024 != 1 x 32 x 64"),
    ("islands.torchrun.sh", "--nnodes=24", "--nnodes=1:24", "static rendezvous takes one node count"),
    ("windowed.megatron.sh", "--window-size 4095,0", "--window-size 4096,0",
     "window_size counts the keys before the query: a window of 4096 keys is (4095, 0)"),
    ("windowed.megatron.sh", "  --window-attn-skip-freq 4\n", "",
     "without the skip frequency every block attends within the window (transformer/utils.py)"),
    # Mixture of experts (issue 10): values Megatron-LM, torchtitan and DeepSpeed-MoE reject.
    ("deepseek-v3.megatron.sh", "--expert-model-parallel-size 64", "--expert-model-parallel-size 48",
     "256 experts are not a multiple of EP 48 (A:1602), and 48 x 8 does not divide 1024 GPUs"),
    ("deepseek-v3.megatron.sh", "  --sequence-parallel\n", "",
     "an MoE model on tp 2 without sequence parallelism does not train (moe_layer.py:629-633)"),
    ("deepseek-v3.megatron.sh", "([0]*3+[1]*58)", "([0]*3+[1]*57)",
     "a 60-entry MoE layer pattern for 61 layers (gpt_layer_specs.py:652-656)"),
    ("deepseek-v3.megatron.sh", "  --moe-router-score-function sigmoid\n", "",
     "expert bias needs the sigmoid score function (TC:2284-2292)"),
    ("mixtral-capacity.megatron.sh", "  --moe-grouped-gemm\n", "  --moe-router-load-balancing-type sinkhorn\n",
     "no grouped GEMM for moe_act recompute (TC:1784-1787), and sinkhorn with a capacity factor (TC:1660-1684)"),
    ("mixtral-capacity.megatron.sh", "  --num-virtual-stages-per-pipeline-rank 2\n", "",
     "EP overlap on pp 4 needs virtual pipeline stages (TC:2670-2675)"),
    ("qwen3-node.megatron.sh", "--expert-tensor-parallel-size 1", "--expert-tensor-parallel-size 3",
     "etp 3 x ep 8 does not divide the 8 GPUs (parallel_state.py:881-884)"),
    ("qwen3-fsdp.torchtitan.toml", "expert_parallel_degree = 8", "expert_parallel_degree = 3",
     "efsdp = 8 / 3 is not whole: the sparse mesh cannot be built (parallel_dims.py:136-157)"),
    ("qwen3-node.deepspeed.json", '"ep_size": 8', '"ep_size": 16',
     "ep_size 16 does not divide the 8 ranks (utils/groups.py:250-258)"),
    # Recompute and resharding as costed (issue 9 items 1 and 4, docs/model.md §6.3, §7.5).
    ("partial-recompute.torchtitan.toml", 'selective_ac_option = "2"', 'selective_ac_option = "3"',
     "every 3rd of 24 blocks is 8 checkpointed blocks per stage, the plan costed 12"),
    ("partial-recompute.megatron.sh", "--recompute-num-layers 4", "--recompute-num-layers 2",
     "2 layers per virtual stage x 3 is 6 checkpointed blocks per stage, the plan costed 12"),
    ("op-sac.torchtitan.toml", 'fsdp_reshard_after_forward = "never"', 'fsdp_reshard_after_forward = "default"',
     "default reshards without pipeline parallelism; the plan keeps the weights gathered"),
    ("op-sac.torchtitan.toml", 'selective_ac_option = "op"', 'selective_ac_option = "2"',
     "every 2nd block fully checkpointed is not the per-op policy the plan costed"),
]


def run_planted(directory):
    failures = []
    for name, old, new, why in PLANTED:
        path = os.path.join(directory, name)
        case = name.split(".")[0]
        if not os.path.exists(path):
            failures.append(f"planted: {name} was not exported")
            continue
        with open(path) as f:
            text = f.read()
        if old not in text:
            failures.append(f"planted: {name} no longer contains {old!r}: update PLANTED")
            continue
        os.makedirs(os.path.join(directory, "planted"), exist_ok=True)
        bad = os.path.join(directory, "planted", name)
        with open(bad, "w") as f:
            f.write(text.replace(old, new))
        if not replay(bad, plan_json_v2.load(os.path.join(directory, case + ".plan.json"))):
            failures.append(f"planted: the replay passed {name} with a planted bug ({why})")
    return failures


def run_cases(directory):
    failures, replayed = [], 0
    for plan_path in sorted(glob.glob(os.path.join(directory, "*.plan.json"))):
        case = os.path.basename(plan_path)[: -len(".plan.json")]
        plan = plan_json_v2.load(plan_path)
        for fmt, ext in FORMATS.items():
            path = os.path.join(directory, f"{case}.{fmt}.{ext}")
            refused = os.path.join(directory, f"{case}.{fmt}.refused")
            if os.path.exists(path):
                failures += replay(path, plan)
                replayed += 1
            elif not os.path.exists(refused):
                failures.append(f"{case}: neither {fmt} export nor its refusal")
    return failures, replayed


def searched_scenarios(source):
    for path in sorted(glob.glob(os.path.join(source, "scenarios", "*.yaml")) +
                       glob.glob(os.path.join(source, "scenarios", "nightly", "*.yaml"))):
        with open(path) as f:
            if any(line.startswith("search:") for line in f):
                yield path


# The shipped MoE scenarios, searched so that Megatron-LM can run their fronts (issue 10): DeepSeek-V3 without EP
# overlap (core_v0.19.0 needs virtual pipeline stages for it when pp > 1, and 61 layers split into none of the
# searched pp x v), and the Qwen3-30B-A3B node with a search over EP, sharding, recompute and micro-batch. Each must
# give Megatron exports that pass, not only refusals: (scenario, variant name, text replaced, replacement).
MOE_VARIANTS = [
    ("deepseek-v3-h100.yaml", "deepseek-v3-h100-no-ep-overlap", "plan.ep_overlap: [false, true]",
     "plan.ep_overlap: [false]"),
    ("qwen3-30b-a3b-node.yaml", "qwen3-30b-a3b-node-searched", "  recompute: full ",
     "  recompute: full\nsearch:\n  axes:\n    plan.ep: [1, 2, 4, 8]\n    plan.sharding: [zero1, fsdp]\n"
     "    plan.recompute: [selective, full]\n    plan.moe_recompute: [none, activation, layer]\n"
     "    training.micro_batch: [1, 2]\n  objectives: [total_cost_usd, tokens_per_s]\n# "),
]


def moe_variants(source, work):
    for name, stem, old, new in MOE_VARIANTS:
        with open(os.path.join(source, "scenarios", name)) as f:
            text = f.read()
        if old not in text:
            raise SystemExit(f"{name} no longer contains {old!r}: update MOE_VARIANTS")
        path = os.path.join(work, stem + ".yaml")
        with open(path, "w") as f:
            f.write(text.replace(old, new).replace(f"name: {os.path.splitext(name)[0]}", f"name: {stem}"))
        yield path


def run_scenarios(shardmeter, source, work):
    import h5py   # Debian's python3-h5py (make deps)
    os.makedirs(work, exist_ok=True)
    failures, replayed, refused = [], 0, 0
    variants = {os.path.splitext(v[1])[0] for v in MOE_VARIANTS}
    for scenario in list(searched_scenarios(source)) + list(moe_variants(source, work)):
        stem = os.path.splitext(os.path.basename(scenario))[0]
        megatron_replayed = 0
        front = os.path.join(work, stem + ".h5")
        search = subprocess.run([shardmeter, "search", scenario, "--quiet", "--threads", "2", "-o", front],
                                capture_output=True, text=True)
        if search.returncode != 0:
            failures.append(f"{stem}: search exited {search.returncode}: {search.stderr.strip()}")
            continue
        with h5py.File(front, "r") as f:
            rows = len(f["front"])
        if rows == 0:
            failures.append(f"{stem}: the shipped search has an empty front")
        for row in range(1, rows + 1):
            base = os.path.join(work, f"{stem}.{row}")
            plan_path = base + ".plan.json"
            made = subprocess.run([shardmeter, "export", front, "--pick", str(row), "--format", "plan-json",
                                   "-o", plan_path], capture_output=True, text=True)
            if made.returncode != 0:
                failures.append(f"{stem} row {row}: plan-json exited {made.returncode}: {made.stderr.strip()}")
                continue
            plan = plan_json_v2.load(plan_path)
            for fmt, ext in FORMATS.items():
                out = f"{base}.{fmt}.{ext}"
                if os.path.exists(out):
                    os.remove(out)
                run = subprocess.run([shardmeter, "export", front, "--pick", str(row), "--format", fmt, "-o", out],
                                     capture_output=True, text=True)
                if run.returncode == 0:
                    failures += replay(out, plan)
                    replayed += 1
                    megatron_replayed += fmt == "megatron"
                elif run.returncode == 2 and f"{fmt} cannot express this plan: " in run.stderr:
                    refused += 1
                    if os.path.exists(out):
                        failures.append(f"{stem} row {row} {fmt}: refused but wrote {out}")
                else:
                    failures.append(f"{stem} row {row} {fmt}: exit {run.returncode}: {run.stderr.strip()}")
        if stem in variants and megatron_replayed == 0:
            failures.append(f"{stem}: no row of the MoE front exported for Megatron-LM (every one refused)")
    return failures, f"{replayed} exports replayed, {refused} refused with a reason"


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "cases":
        failures, replayed = run_cases(sys.argv[2])
        failures += run_planted(sys.argv[2])
        summary = f"{replayed} exports replayed, {len(PLANTED)} planted bugs caught"
    elif len(sys.argv) == 5 and sys.argv[1] == "scenarios":
        failures, summary = run_scenarios(*sys.argv[2:])
    else:
        print(__doc__)
        return 2
    if failures:
        print("\n".join(failures))
        print(f"FAILED: {len(failures)} checks ({summary})")
        return 1
    print(f"ok: {summary}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
