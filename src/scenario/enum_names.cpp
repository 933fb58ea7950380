#include "src/scenario/enum_names.hpp"

namespace shardmeter::cli {

int grad_reduce_bytes(GradReduceDtype dtype) { return dtype == GradReduceDtype::fp32 ? 4 : 2; }

}  // namespace shardmeter::cli
