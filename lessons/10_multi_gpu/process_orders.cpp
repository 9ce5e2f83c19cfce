// Lesson 10 under mpirun: rank 0's orders and the handshake (process_orders.hpp).
#include "10_multi_gpu/process_orders.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "10_multi_gpu/multi_gpu_runs.hpp"
#include "base/device_info.hpp"
#include "common/backend.hpp"
#include "multi_process/process_world.hpp"

namespace gpulab::multi_gpu_runs {

namespace {

namespace mp = multi_process;

// Every process's arguments, the program's name left out, as one string.
std::string arguments_of(int argc, const char* const* argv) {
  std::string text;
  for (int i = 1; i < argc; ++i) text += std::string(argv[i]) + '\n';
  return text;
}

// Rank 0's text, sent to every process (its length first).
std::string broadcast_text(std::string text) {
  std::uint64_t length = text.size();
  mp::broadcast_values(std::span<std::uint64_t>(&length, 1));
  text.resize(length);
  mp::broadcast(std::as_writable_bytes(std::span<char>(text.data(), text.size())));
  return text;
}

// Rank 0 sends its verdict; every process prints it and ends when it is not empty.
void agree_or_end(const std::string& verdict_on_rank0) {
  const std::string verdict = broadcast_text(verdict_on_rank0);
  if (verdict.empty()) return;
  fmt::print(stderr, "lesson10_multi_gpu, process {} of {}: {}\n", mp::world().rank, mp::world().size, verdict);
  std::exit(2);
}

}  // namespace

void send(const Orders& orders) {
  Orders copy = orders;
  mp::broadcast_values(std::span<Orders>(&copy, 1));
}

Orders receive() {
  Orders orders;
  mp::broadcast_values(std::span<Orders>(&orders, 1));
  return orders;
}

std::optional<int> other_processes(int argc, const char* const* argv, bool training, bool gpu) {
  if (!mp::started_by_mpirun()) return std::nullopt;
  const mp::World& world = mp::world();
  // A process started with other arguments (mpirun's "-np 1 a : -np 1 b" form) would compute a
  // different problem: every process says so and ends.
  const std::string mine = arguments_of(argc, argv), rank0 = broadcast_text(mine);
  const int differs = mine != rank0 ? 1 : 0;
  std::vector<float> count{static_cast<float>(differs)};
  mp::sum_everywhere(count);
  if (count.front() > 0) {
    fmt::print(stderr,
               "lesson10_multi_gpu, process {} of {}: {} process(es) were started with other arguments than rank 0's; "
               "every process of an mpirun must run the same command (this one: {})\n",
               world.rank, world.size, static_cast<int>(count.front()), differs ? "differs" : "the same as rank 0's");
    std::exit(2);
  }
  // One GPU per process: the processes on this machine against its GPUs, which rank 0 (it sees
  // them all) counts before any other process touches CUDA.
  std::string verdict;
  if (world.rank == 0 && gpu && kGpuBuilt && !training) {
    const int gpus = visible_gpus();
    if (gpus == 0) {
      verdict = "no GPU here (" + device_info().reason + "): --backend cpu runs the CPU rows";
    } else if (world.local_size > gpus) {
      verdict = fmt::format(
          "{} processes on this machine and {} GPU(s): the process-per-GPU step needs one GPU per process (mpirun -np "
          "{} or fewer)",
          world.local_size, gpus, gpus);
    }
  }
  agree_or_end(verdict);
  if (training) return std::nullopt;
  if (world.rank == 0) {
    std::atexit([] { send(Orders{}); });  // before MPI is finalised (registered earlier, run later)
    return std::nullopt;
  }
  if (kGpuBuilt) return follow_rank0();
  while (receive().order != Order::stop) {
  }  // an emulated-only build sends nothing else: its process-per-GPU variant is skipped
  return 0;
}

}  // namespace gpulab::multi_gpu_runs
