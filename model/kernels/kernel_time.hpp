#pragma once
// Time of single kernels on one GPU: GEMMs at a size-dependent fraction of peak (roofline-bounded),
// memory-bound kernels at HBM bandwidth.
#include "model/spec/enums.hpp"
#include "model/spec/hardware_spec.hpp"

namespace shardmeter::model {

// Tile efficiency of one GEMM dimension: x / (x + x_half). Small dimensions waste tensor-core tiles
// (the shape dependence behind ml-engineering's MAMF table and Calculon's size-efficiency tables).
double dimension_efficiency(double dim, double half_dim) noexcept;

// An m x k by k x n GEMM: max(compute at gemm_efficiency * tile efficiency, operand traffic at HBM speed)
// plus one kernel overhead. fp8 runs at the fp8 peak when the GPU has one, with 1-byte operands and a 16-bit output.
double gemm_time_s(double m, double n, double k, const GpuSpec& gpu, Precision precision) noexcept;

// `bytes` moved through HBM by memory-bound kernels, plus `kernels` launch overheads.
double memory_bound_time_s(double bytes, double kernels, const GpuSpec& gpu) noexcept;

}  // namespace shardmeter::model
