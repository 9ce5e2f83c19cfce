#include "multi_process/process_world.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "multi_process/mpi_library.hpp"

namespace gpulab::multi_process {

namespace {

// Open MPI's MPI_IN_PLACE: "the result replaces the input".
const void* const kInPlace = reinterpret_cast<const void*>(1);

int env_int(const char* name, int otherwise) {
  const char* text = std::getenv(name);
  return text != nullptr ? std::atoi(text) : otherwise;
}

}  // namespace

bool started_by_mpirun() { return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr; }

const World& world() {
  static const World w = [] {
    World made;
    if (!started_by_mpirun()) return made;
    const Mpi& m = mpi();
    int ready = 0;
    GPULAB_MPI_CHECK(m.initialized(&ready));
    if (ready == 0) {
      GPULAB_MPI_CHECK(m.init(nullptr, nullptr));
      std::atexit([] { mpi().finalize(); });
    }
    GPULAB_MPI_CHECK(m.comm_rank(m.world, &made.rank));
    GPULAB_MPI_CHECK(m.comm_size(m.world, &made.size));
    made.local_rank = env_int("OMPI_COMM_WORLD_LOCAL_RANK", made.rank);
    made.local_size = env_int("OMPI_COMM_WORLD_LOCAL_SIZE", made.size);
    return made;
  }();
  return w;
}

void broadcast(std::span<std::byte> data, int root) {
  if (world().size == 1) return;
  const Mpi& m = mpi();
  // MPI counts in int: a large buffer goes in pieces of 1 GiB.
  constexpr std::size_t kPiece = std::size_t{1} << 30;
  for (std::size_t at = 0; at < data.size(); at += kPiece) {
    const auto bytes = static_cast<int>(std::min(kPiece, data.size() - at));
    GPULAB_MPI_CHECK(m.bcast(data.data() + at, bytes, m.byte_type, root, m.world));
  }
}

void sum_everywhere(std::span<float> values) {
  if (world().size == 1) return;
  const Mpi& m = mpi();
  constexpr std::size_t kPiece = std::size_t{1} << 28;
  for (std::size_t at = 0; at < values.size(); at += kPiece) {
    const auto count = static_cast<int>(std::min(kPiece, values.size() - at));
    GPULAB_MPI_CHECK(m.allreduce(kInPlace, values.data() + at, count, m.float_type, m.sum, m.world));
  }
}

void wait_for_every_process() {
  if (world().size > 1) GPULAB_MPI_CHECK(mpi().barrier(mpi().world));
}

bool same_everywhere(std::uint64_t value) {
  if (world().size == 1) return true;
  const Mpi& m = mpi();
  std::uint64_t mine[2] = {value, ~value}, most[2] = {0, 0};
  GPULAB_MPI_CHECK(m.allreduce(mine, most, 2, m.uint64_type, m.max, m.world));
  return most[0] == value && ~most[1] == value;
}

std::uint64_t checksum(std::span<const std::byte> bytes) {
  std::uint64_t h = 14695981039346656037ull;
  for (std::byte b : bytes) h = (h ^ static_cast<std::uint64_t>(b)) * 1099511628211ull;
  return h;
}

void abort_job(const std::string& message, int code) {
  std::fprintf(stderr, "rank %d of %d: %s\n", world().rank, world().size, message.c_str());
  std::fflush(stderr);
  if (world().size > 1) mpi().abort(mpi().world, code);
  std::_Exit(code);
}

Deadline::Deadline(std::string what, int seconds) {
  watcher_ = std::thread([this, what = std::move(what), seconds] {
    std::unique_lock lock(mutex_);
    if (ended_.wait_for(lock, std::chrono::seconds(seconds), [this] { return done_; })) return;
    abort_job(what + " did not finish within " + std::to_string(seconds) +
              " s: another process stopped, died or was started with other arguments; ending the job");
  });
}

Deadline::~Deadline() {
  {
    std::lock_guard lock(mutex_);
    done_ = true;
  }
  ended_.notify_all();
  watcher_.join();
}

}  // namespace gpulab::multi_process
