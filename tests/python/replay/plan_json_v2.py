"""ShardMeter's own plan-json, "schema_version": 2 (docs/export.md): the arithmetic every other export relies on."""
import json

from common import Checks, check_tokens_trained


def check(text, plan):
    c = Checks("shardmeter-plan v2")
    j = json.loads(text)
    c.require(j == plan, "the plan-json differs from the plan it describes")
    c.require(j["format"] == "shardmeter-plan" and j["schema_version"] == 2, "format / schema_version")
    c.require(j["source"]["row"] >= 1, "rows are numbered from 1")
    p, job, t = j["plan"], j["job"], j["training"]
    check_tokens_trained(c, t.get("steps"), t["global_batch"] * j["model"]["seq_len"], j, "training.steps")
    c.require(job["data_parallel_shard"] * job["data_parallel_replicate"] == job["data_parallel"],
              "dp_shard x dp_replicate != data_parallel")
    c.require(job["model_parallel"] == p["tp"] * p["pp"] * p["cp"], "model_parallel != tp x pp x cp")
    if p["pp_across_islands"] is False and job["gradient_accumulation_steps"] is not None:
        c.require(job["world_size"] == job["model_parallel"] * job["data_parallel"], "world != model x data parallel")
        c.require(t["micro_batch"] * job["gradient_accumulation_steps"] * job["data_parallel"] == job["batch_per_step"],
                  "micro x accumulation x dp != the job's batch")
    c.require(job["batch_per_step"] * job["jobs"] == t["global_batch"], "the jobs' batches != the global batch")
    ranks = sum(i["ranks"]["last"] - i["ranks"]["first"] + 1 for i in j["islands"])
    c.require(ranks == j["total_gpus"], f"islands hold {ranks} ranks, the plan {j['total_gpus']} GPUs")
    for key in j["predicted"]:
        c.require(key == "bottleneck" or key in j["units"], f"predicted {key} has no unit")
    c.require(all(u for u in j["units"].values()), "an empty unit")
    return c.failures


def load(path):
    with open(path) as f:
        return json.load(f)
