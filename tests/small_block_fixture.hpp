#pragma once
// A small dense block whose activations are checkable by hand (docs/model.md §7.3, §7.5, §7.11).
#include "model_fixtures.hpp"

namespace shardmeter::test {

// h 1024, 8 query and 8 key/value heads of 128, SwiGLU f 4096, sequence 1024, no dropout.
inline model::ModelSpec small_block() {
  model::ModelSpec m = llama3_8b();
  m.hidden = 1024;
  m.heads = 8;
  m.kv_heads = 8;
  m.head_dim = 128;
  m.ffn_hidden = 4096;
  m.seq_len = 1024;
  m.dropout = false;
  return m;
}

}  // namespace shardmeter::test
