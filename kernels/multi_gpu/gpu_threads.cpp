#include "multi_gpu/gpu_threads.hpp"

#include <cuda_runtime.h>

#include <chrono>

namespace gpulab::gpu::multi_gpu {

namespace {

using Clock = std::chrono::steady_clock;
constexpr auto kSpin = std::chrono::milliseconds(2);

// Waits until `value` differs from `seen`: spinning at first, then asleep in the kernel.
template <typename T>
T wait_for_change(const std::atomic<T>& value, T seen) {
  const auto until = Clock::now() + kSpin;
  for (int i = 0;; ++i) {
    const T now = value.load(std::memory_order_acquire);
    if (now != seen) return now;
    if ((i & 255) == 0 && Clock::now() > until) break;
  }
  value.wait(seen, std::memory_order_acquire);
  return value.load(std::memory_order_acquire);
}

}  // namespace

GpuThreads::GpuThreads(int gpus) : gpus_(gpus) {
  if (gpus_ < 2) return;
  for (int g = 0; g < gpus_; ++g) threads_.emplace_back([this, g] { serve(g); });
}

GpuThreads::~GpuThreads() {
  stopping_.store(true, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);
  generation_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void GpuThreads::run(const std::function<void(int gpu)>& job) {
  if (threads_.empty()) {
    job(0);
    return;
  }
  job_ = &job;
  error_ = nullptr;
  running_.store(gpus_, std::memory_order_release);
  generation_.fetch_add(1, std::memory_order_acq_rel);  // publishes job_ to the threads
  generation_.notify_all();
  for (int left = running_.load(std::memory_order_acquire); left != 0;) left = wait_for_change(running_, left);
  if (error_) std::rethrow_exception(error_);
}

void GpuThreads::serve(int gpu) {
  // A failure here shows at the job's first CUDA call on this thread, which is checked.
  cudaSetDevice(gpu);
  std::uint64_t seen = 0;
  for (;;) {
    seen = wait_for_change(generation_, seen);
    if (stopping_.load(std::memory_order_acquire)) return;
    try {
      (*job_)(gpu);
      finish(nullptr);
    } catch (...) {
      finish(std::current_exception());
    }
  }
}

void GpuThreads::finish(std::exception_ptr error) {
  if (error) {
    const std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = error;
  }
  if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) running_.notify_all();
}

}  // namespace gpulab::gpu::multi_gpu
