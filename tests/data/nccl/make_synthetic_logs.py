#!/usr/bin/env python3
"""Writes the SYNTHETIC nccl-tests logs of this folder (run from here: /usr/bin/python3 make_synthetic_logs.py).

The numbers are not measurements. They are shaped after the collapse described in issue 29 for a public H100
cluster (all-gather / reduce-scatter bus bandwidth about 250 GB/s on one node falling to about 11-12 GB/s on 64 nodes,
all-reduce about 436 to 33 GB/s), with time = latency + size x busbw factor / peak busbw. The format is nccl-tests'
standard stdout (header, rank lines, the out-of-place / in-place table, the footer), as printed by nccl-tests 2.13.
"""

# op -> (binary, redop, {nodes: (peak busbw GB/s, latency us)})
RUNS = {
    "all_gather": ("all_gather_perf", "none", {1: (250.0, 20.0), 4: (60.0, 60.0), 16: (25.0, 110.0), 64: (12.5, 200.0)}),
    "reduce_scatter": ("reduce_scatter_perf", "sum", {1: (245.0, 20.0), 4: (58.0, 60.0), 16: (24.0, 110.0), 64: (12.0, 200.0)}),
    "all_reduce": ("all_reduce_perf", "sum", {1: (436.0, 30.0), 4: (120.0, 80.0), 16: (60.0, 140.0), 64: (33.0, 260.0)}),
}
GPUS_PER_NODE = 8
SIZES = [65536 * 4**i for i in range(9)]  # -b 64K -e 4G -f 4


def factor(op, n):
    return 2.0 * (n - 1) / n if op == "all_reduce" else (n - 1) / n


def time_str(t):
    return f"{t:7.2f}" if t < 10000 else f"{t:7.1f}" if t < 100000 else f"{t:7.0f}"


def log(op, binary, redop, nodes, peak, lat):
    n = nodes * GPUS_PER_NODE
    lines = [f"# Collective test starting: {binary}",
             f"# nThread 1 nGpus 1 minBytes {SIZES[0]} maxBytes {SIZES[-1]} step: 4(factor) warmup iters: 5 iters: 20 "
             "agg iters: 1 validation: 1 graph: 0",
             "#", "# Using devices"]
    for r in range(n):
        node, dev = divmod(r, GPUS_PER_NODE)
        lines.append(f"#  Rank {r:2d} Group  0 Pid {40000 + r:6d} on  gpu-node{node + 1:03d} device {dev:2d} "
                     f"[0x{0x18 + 0x10 * dev:02x}] NVIDIA H100 80GB HBM3")
    lines += ["#",
              "#                                                              out-of-place                       in-place          ",
              "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       "]
    total = 0.0
    for s in SIZES:
        f = factor(op, n)
        t_out = lat + s * f / (peak * 1e3)  # us: bytes / (GB/s * 1e3) = us
        t_in = t_out * 0.995
        cols = []
        for t in (t_out, t_in):
            t = float(time_str(t))
            algbw = s / t / 1e3
            cols.append(f"  {time_str(t)}  {algbw:6.2f}  {algbw * f:6.2f}  {0:5d}")
        total += float(cols[0].split()[2])
        lines.append(f"{s:12d}  {s // 4:12d}  {'float':>8s}  {redop:>6s}  {-1:6d}" + "".join(cols))
    lines += ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {total / len(SIZES):.4f} ", "#", ""]
    return "\n".join(lines)


for op, (binary, redop, runs) in RUNS.items():
    for nodes, (peak, lat) in runs.items():
        with open(f"{binary}_{nodes}n.log", "w") as out:
            out.write(log(op, binary, redop, nodes, peak, lat))
