#pragma once
// The processes of one MPI launch (`mpirun -np N`, `srun`): MPI initialised for as long as an MpiWorld lives.
// Built only when CMake finds MPI (src/CMakeLists.txt); see docs/scale.md.
#include <mutex>

namespace shardmeter::distributed {

// True when this process was started by an MPI launcher (OpenMPI's mpirun, or a PMI/PMIx launcher such as
// Slurm's srun). Without one, the program never initialises MPI and runs as a single process.
bool launched_by_mpi() noexcept;

class MpiWorld {
public:
  // MPI_Init_thread asking for MPI_THREAD_MULTIPLE; at least MPI_THREAD_SERIALIZED is needed, since the search
  // calls MPI from its worker threads (serialised by lock()). Throws std::runtime_error otherwise.
  MpiWorld();
  ~MpiWorld();  // MPI_Finalize
  MpiWorld(const MpiWorld&) = delete;
  MpiWorld& operator=(const MpiWorld&) = delete;

  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  // Every MPI call of this process holds it.
  std::mutex& lock() noexcept { return lock_; }

  // Ends every rank of the launch with `status` (MPI_Abort), after printing `message` to stderr (prefixed with
  // the rank on ranks other than 0). For failures one rank cannot recover from alone.
  [[noreturn]] void abort(const char* message, int status) noexcept;

private:
  int rank_ = 0;
  int size_ = 1;
  std::mutex lock_;
};

}  // namespace shardmeter::distributed
