#pragma once
// One host thread per GPU, as frameworks run one process per GPU: each thread queues its own
// GPU's work, so the GPUs start together instead of one after another, and each can make its own
// NCCL calls (one thread driving every GPU must wrap each collective in a group over all of them).
//
// run(job) calls job(g) on GPU g's thread, with device g current there, for every GPU at once,
// and returns when every call has returned; it rethrows the first exception a call threw. With
// one GPU the job runs on the calling thread. Between jobs the threads spin for a couple of
// milliseconds, then sleep: a training loop's next step finds them awake (a sleeping thread takes
// tens of microseconds to wake), an idle program does not keep cores busy.
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace gpulab::gpu::multi_gpu {

class GpuThreads {
 public:
  explicit GpuThreads(int gpus);
  ~GpuThreads();
  GpuThreads(const GpuThreads&) = delete;
  GpuThreads& operator=(const GpuThreads&) = delete;

  int gpus() const { return gpus_; }
  void run(const std::function<void(int gpu)>& job);

 private:
  void serve(int gpu);
  void finish(std::exception_ptr error);

  int gpus_;
  const std::function<void(int)>* job_ = nullptr;
  std::atomic<std::uint64_t> generation_{0};  // +1 for each job; the threads watch it
  std::atomic<int> running_{0};               // calls of the current job not returned yet
  std::atomic<bool> stopping_{false};
  std::mutex error_mutex_;
  std::exception_ptr error_;
  std::vector<std::thread> threads_;
};

}  // namespace gpulab::gpu::multi_gpu
