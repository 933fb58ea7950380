#!/usr/bin/python3
"""Parses the exported torchtitan TOML with tomllib (Python 3.11+) and the plan-json / DeepSpeed JSON with json, then
checks the degrees multiply to the GPU count and the batch arithmetic holds.

Usage: check_exports.py DIR   (plan.toml, plan.json and deepspeed.json, written by the export fixture)
Exit status: 0 ok, 1 a check failed, 1 also when tomllib is missing (a missing tool fails the test; `make deps` installs what the tests need).
"""
import json
import os
import sys

try:
    import tomllib
except ImportError:  # pragma: no cover - Python < 3.11
    print(f"failed: {sys.executable} has no tomllib (Python 3.11 or newer is needed)")
    sys.exit(1)

directory = sys.argv[1]
failures = []


def check(condition, message):
    if not condition:
        failures.append(message)


with open(os.path.join(directory, "plan.toml"), "rb") as f:
    toml = tomllib.load(f)
with open(os.path.join(directory, "plan.json")) as f:
    plan = json.load(f)
with open(os.path.join(directory, "deepspeed.json")) as f:
    ds = json.load(f)

par, training = toml["parallelism"], toml["training"]
degrees = (par["data_parallel_shard_degree"] * par["data_parallel_replicate_degree"] * par["tensor_parallel_degree"]
           * par["pipeline_parallel_degree"] * par["context_parallel_degree"])
check(degrees == plan["total_gpus"], f"torchtitan degrees multiply to {degrees}, the plan has {plan['total_gpus']} GPUs")
check(par["tensor_parallel_degree"] == plan["plan"]["tp"], "tensor_parallel_degree != plan tp")
check(par["pipeline_parallel_degree"] == plan["plan"]["pp"], "pipeline_parallel_degree != plan pp")
check(par["context_parallel_degree"] == plan["plan"]["cp"], "context_parallel_degree != plan cp")
dp = par["data_parallel_shard_degree"] * par["data_parallel_replicate_degree"]
check(dp == plan["job"]["data_parallel"], f"torchtitan dp {dp} != plan-json data_parallel {plan['job']['data_parallel']}")
check(training["global_batch_size"] == plan["training"]["global_batch"], "global batch differs")
check(training["global_batch_size"] % (training["local_batch_size"] * dp) == 0,
      "global_batch_size is not a multiple of local_batch_size x dp")
if par["pipeline_parallel_degree"] > 1:
    check(training["local_batch_size"] % par["pipeline_parallel_microbatch_size"] == 0,
          "local_batch_size is not a multiple of the pipeline micro-batch")
check(toml["activation_checkpoint"]["mode"] in ("none", "selective", "full"), "activation_checkpoint.mode")
job = plan["job"]
check(plan["schema_version"] == 1, "plan-json schema_version")
check(plan["training"]["micro_batch"] * job["gradient_accumulation_steps"] * job["data_parallel"]
      == plan["training"]["global_batch"], "plan-json: micro x accumulation x dp != global batch")
ranks = sum(i["ranks"]["last"] - i["ranks"]["first"] + 1 for i in plan["islands"])
check(ranks == plan["total_gpus"], f"plan-json islands hold {ranks} ranks")
world = 64   # the fixture's DeepSpeed plan: 64 GPUs, no tensor or pipeline parallelism
check(ds["train_micro_batch_size_per_gpu"] * ds["gradient_accumulation_steps"] * world == ds["train_batch_size"],
      "deepspeed: micro x accumulation x dp != train_batch_size")
check(ds["zero_optimization"]["stage"] == 2, "deepspeed ZeRO stage")

if failures:
    print("\n".join(failures))
    sys.exit(1)
print(f"ok: torchtitan degrees {degrees} GPUs, batches consistent")
