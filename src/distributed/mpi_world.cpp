#include "src/distributed/mpi_world.hpp"

#include <mpi.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>

namespace shardmeter::distributed {

bool launched_by_mpi() noexcept {
  // OpenMPI's mpirun sets OMPI_COMM_WORLD_SIZE; PMIx launchers (srun --mpi=pmix) PMIX_RANK; PMI-1/2 ones PMI_SIZE.
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (std::getenv(name) != nullptr) return true;
  return false;
}

MpiWorld::MpiWorld() {
  int provided = 0;
  if (MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided) != MPI_SUCCESS)
    throw std::runtime_error("MPI_Init_thread failed");
  if (provided < MPI_THREAD_SERIALIZED) {
    MPI_Finalize();
    throw std::runtime_error("the MPI library does not support MPI_THREAD_SERIALIZED, which the search needs");
  }
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() { MPI_Finalize(); }

void MpiWorld::abort(const char* message, int status) noexcept {
  if (rank_ != 0) {
    // Rank 0 usually fails the same way (every rank reads the same input): give it time to be the one that
    // reports, so the user reads one message rather than one per rank.
    std::this_thread::sleep_for(std::chrono::seconds(2));
    std::fprintf(stderr, "shardmeter (MPI rank %d of %d): %s\n", rank_, size_, message);
  } else {
    std::fprintf(stderr, "%s\n", message);
  }
  std::fflush(stderr);
  MPI_Abort(MPI_COMM_WORLD, status);
  std::abort();  // MPI_Abort does not return
}

}  // namespace shardmeter::distributed
