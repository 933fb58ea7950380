// libFuzzer harness: the HDF5 front reader (`report`, `export`, nightly's diff) on arbitrary bytes. An InputError
// naming the file is a correct answer; anything else is a bug.
#include <cstddef>
#include <cstdint>

#include "fuzz_support.hpp"
#include "results/errors.hpp"
#include "results/files/hdf5_reader.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardmeter;
  const std::string path = fuzz::scratch_file(data, size, "front.h5");
  try {
    const results::ResultFile file = results::read_front(path);
    (void)results::read_all(path);
  } catch (const results::ResultsError&) {
  }
  return 0;
}
