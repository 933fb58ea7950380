// torchrun: the launch command for every island of a synchronous job, as a shell script, pinned to PyTorch v2.6.0's
// torch/distributed/run.py. One job spans all islands: --nnodes is the job's node count (static rendezvous takes the
// world from it, a single number) and each island's nodes take a contiguous range of node ranks, so global ranks
// (node_rank x nproc_per_node + local_rank) stay contiguous per island; --nproc_per_node is one number per job
// (run.py:349, homogeneous LOCAL_WORLD_SIZE). Options (run.py:425-616): --nnodes, --nproc_per_node, --node_rank,
// --master_addr, --master_port; placeholders come from the environment.
#include <fmt/format.h>

#include "results/export/export_formats.hpp"
#include "results/markup.hpp"

namespace shardmeter::results {

namespace {

constexpr const char* kFormat = "torchrun";

void check(const Deployment& p) {
  if (p.diloco())
    throw ExportError(kFormat, fmt::format("DiLoCo across {} islands (plan.sync = diloco): the islands are separate jobs "
                                           "synchronised by an outer optimizer, not one torchrun job (use torchtitan "
                                           "or plan-json)", p.islands.size()));
  for (const DeployIsland& d : p.islands)
    if (d.gpus_per_node != p.islands.front().gpus_per_node)
      throw ExportError(kFormat, fmt::format("islands with {} and {} GPUs per node: --nproc_per_node is one number per job",
                                             p.islands.front().gpus_per_node, d.gpus_per_node));
}

}  // namespace

Exported export_torchrun(const Deployment& p, const ExportSource& source) {
  check(p);
  Exported out;
  std::string& t = out.text;
  std::int64_t nodes = 0;
  for (const DeployIsland& d : p.islands) nodes += d.nodes;
  const std::int64_t per_node = p.islands.empty() ? 0 : p.islands.front().gpus_per_node;
  t = "#!/bin/sh\n" + export_header_comment(ExportFormat::torchrun, p, source);
  t += fmt::format("# one job: {} nodes x {} GPUs = {} ranks (tp {} x pp {} x cp {} x dp {})\n", nodes, per_node,
                   p.total_gpus(), p.plan().tp, p.plan().pp, p.plan().cp, p.degrees().data_parallel);
  if (p.moe())
    t += fmt::format("# experts: etp {} x ep {} x edp {} per pipeline stage (the training script's expert groups)\n",
                     p.plan().etp, p.plan().ep, p.expert_data_parallel());
  t += "# Run on every node: ISLAND=<island> NODE_RANK=<node rank> MASTER_ADDR=<a node of island 0> sh <this file> ARGS\n";
  t += ": \"${MASTER_PORT:=29500}\"\n: \"${TRAIN_SCRIPT:=train.py}\"\n";
  t += fmt::format("case \"${{ISLAND:?set ISLAND to 0..{}}}\" in\n", p.islands.size() - 1);
  for (std::size_t i = 0; i < p.islands.size(); ++i) {
    const DeployIsland& d = p.islands[i];
    t += fmt::format("  # island {} \"{}\" ({}{}): {} nodes x {} GPUs, node ranks {}-{}, global ranks {}-{}\n", i,
                     comment_text(d.name), comment_text(d.gpu), d.spot ? ", spot" : "", d.nodes, d.gpus_per_node,
                     d.first_node, d.first_node + d.nodes - 1, d.first_rank, d.last_rank);
    t += fmt::format("  {})\n    exec torchrun --nnodes={} --nproc_per_node={} --node_rank=\"${{NODE_RANK:?node rank {}-{}}}\" "
                     "--master_addr=\"${{MASTER_ADDR:?}}\" --master_port=\"$MASTER_PORT\" \"$TRAIN_SCRIPT\" \"$@\" ;;\n",
                     i, nodes, d.gpus_per_node, d.first_node, d.first_node + d.nodes - 1);
  }
  t += fmt::format("  *) echo \"ISLAND must be 0..{}\" >&2; exit 2 ;;\nesac\n", p.islands.size() - 1);
  if (p.islands.size() > 1)
    out.notes.push_back("torchrun: every island runs its own line; island 0's MASTER_ADDR must be reachable over the WAN");
  return out;
}

}  // namespace shardmeter::results
