"""PyTorch v2.6.0 torchrun (torch/distributed/run.py of Debian's python3-torch 2.6.0+dfsg-7, upstream v2.6.0): the
argument parser and launcher checks, replayed on every `torchrun` line of ShardMeter's launch script. RUN =
torch/distributed/run.py, STATIC = torch/distributed/elastic/rendezvous/static_tcp_rendezvous.py, API =
torch/distributed/elastic/agent/server/api.py.
"""
import re
import shlex

from common import Checks

# Options and their aliases (RUN:417-649); a value is "int" or "str", None for a switch.
OPTIONS = {"--nnodes": "str", "--nproc-per-node": "str", "--nproc_per_node": "str", "--rdzv-backend": "str",
           "--rdzv_backend": "str", "--rdzv-endpoint": "str", "--rdzv_endpoint": "str", "--rdzv-id": "str",
           "--rdzv_id": "str", "--rdzv-conf": "str", "--rdzv_conf": "str", "--standalone": None,
           "--max-restarts": "int", "--max_restarts": "int", "--monitor-interval": "str", "--start-method": "str",
           "--role": "str", "-m": None, "--module": None, "--no-python": None, "--run-path": None,
           "--log-dir": "str", "--node-rank": "int", "--node_rank": "int", "--master-addr": "str",
           "--master_addr": "str", "--master-port": "int", "--master_port": "int", "--local-addr": "str",
           "--local_addr": "str", "--logs-specs": "str"}


def parse_line(tokens, c):
    """Options of one torchrun command up to the training script (argparse REMAINDER, RUN:641-649)."""
    options, i = {}, 1
    while i < len(tokens) and tokens[i].startswith("-"):
        name, _, value = tokens[i].partition("=")
        kind = OPTIONS.get(name)
        if not c.require(name in OPTIONS, f"{name}: unrecognized torchrun option"):
            i += 1
            continue
        if kind is None:
            options[name.lstrip("-").replace("-", "_")] = True
        else:
            options[name.lstrip("-").replace("-", "_")] = value
        i += 1
    c.require(i < len(tokens), "no training script")
    return options


def check(text, plan):
    c = Checks("PyTorch torchrun v2.6.0")
    commands = []
    for line in text.splitlines():
        m = re.search(r"exec (torchrun .*?) ;;", line)
        if not m:
            continue
        # What the shell passes torchrun: parameter expansions replaced by a value from the environment.
        values = {"NODE_RANK": "0", "MASTER_ADDR": "10.0.0.1", "MASTER_PORT": "29500", "TRAIN_SCRIPT": "train.py"}
        command = re.sub(r"\$\{(\w+)(:[?=][^}]*)?\}", lambda e: values.get(e.group(1), "x"), m.group(1))
        command = re.sub(r"\$(\w+)", lambda e: values.get(e.group(1), "x"), command).replace('"$@"', "")
        tokens = shlex.split(command)
        rank_range = re.search(r"NODE_RANK:\?node rank (\d+)-(\d+)", m.group(1))
        commands.append((tokens, rank_range))
    if not c.require(len(commands) == len(plan["islands"]), f"{len(commands)} torchrun lines for "
                     f"{len(plan['islands'])} islands"):
        return c.failures
    ranges = []
    for island, (tokens, rank_range) in zip(plan["islands"], commands):
        o = parse_line(tokens, c)
        nnodes = o.get("nnodes", "1:1")
        fields = nnodes.split(":")
        c.require(len(fields) in (1, 2) and all(f.isdigit() for f in fields), f"--nnodes={nnodes} (RUN:659-670)")
        c.require(len(fields) == 1, "static rendezvous takes the world from --nnodes: one number (STATIC:118)")
        if not all(f.isdigit() for f in fields):
            continue
        nodes = int(fields[-1])
        c.require(0 < int(fields[0]) <= nodes, "0 < min nodes <= max nodes (RUN:776)")
        nproc = o.get("nproc_per_node", "1")
        c.require(nproc.isdigit(), f"--nproc_per_node={nproc} is not an int")
        c.require(int(nproc) == island["gpus_per_node"], "--nproc_per_node differs from the island's GPUs per node")
        c.require(nodes * int(nproc) == plan["total_gpus"], f"{nodes} x {nproc} ranks != {plan['total_gpus']} GPUs")
        c.require("rdzv_backend" not in o or o["rdzv_backend"] == "static", "static rendezvous expected")
        c.require("master_addr" in o and o["master_addr"] != "", "--master_addr is needed (RUN:719-722)")
        c.require("master_port" in o, "--master_port is needed")
        c.require("node_rank" in o, "static rendezvous needs a rank: add --node-rank (STATIC:101-127)")
        c.require(not ("no_python" in o and ("m" in o or "module" in o)), "--no-python with -m (RUN:863-867)")
        c.require(o.get("master_port", "").isdigit() and int(o["master_port"]) < 2 ** 16, "--master_port is not a port")
        if c.require(rank_range is not None, "no node-rank range on the line"):
            ranges.append((int(rank_range.group(1)), int(rank_range.group(2)), island))
    # Node ranks of the islands: contiguous, disjoint, covering 0 .. nnodes-1 (API:555-600, ranks by group rank).
    expected = 0
    for first, last, island in sorted(ranges):
        c.require(first == expected, f"node ranks of island {island['name']} start at {first}, expected {expected}")
        c.require(last - first + 1 == island["nodes"], "node-rank range differs from the island's nodes")
        c.require(island["node_ranks"]["first"] == first, "plan-json node ranks differ")
        expected = last + 1
    c.require(expected * plan["islands"][0]["gpus_per_node"] == plan["total_gpus"], "node ranks do not cover the job")
    return c.failures
