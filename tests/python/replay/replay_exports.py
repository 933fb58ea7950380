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


def run_scenarios(shardmeter, source, work):
    import h5py   # Debian's python3-h5py (make deps)
    os.makedirs(work, exist_ok=True)
    failures, replayed, refused = [], 0, 0
    for scenario in searched_scenarios(source):
        stem = os.path.splitext(os.path.basename(scenario))[0]
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
                elif run.returncode == 2 and f"{fmt} cannot express this plan: " in run.stderr:
                    refused += 1
                    if os.path.exists(out):
                        failures.append(f"{stem} row {row} {fmt}: refused but wrote {out}")
                else:
                    failures.append(f"{stem} row {row} {fmt}: exit {run.returncode}: {run.stderr.strip()}")
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
