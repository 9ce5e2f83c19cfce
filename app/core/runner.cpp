// The runner thread and its event queue.
#include "core/runner.hpp"

#include <exception>

#include "base/device_info.hpp"

namespace gpulab::app {

std::size_t expected_measurements(const RunRequest& request) {
  if (request.lesson == nullptr) return 0;
  const auto runs = selected_runs(*request.lesson, request.selection);
  const std::size_t blocks = request.selection.blocks.empty() ? 1 : request.selection.blocks.size();
  return runs.size() * request.selection.sizes.size() * blocks;
}

void Runner::run_with_harness(const RunRequest& request, const RunCallbacks& callbacks) {
  run_lesson(*request.lesson, request.selection, callbacks);
}

Runner::Runner(Execute execute) : execute_(std::move(execute)), thread_([this] { loop(); }) {}

Runner::~Runner() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
    queue_.clear();
  }
  cancel_ = true;
  wake_.notify_all();
  thread_.join();
}

void Runner::submit(RunRequest request) {
  {
    std::lock_guard lock(mutex_);
    queue_.push_back(std::move(request));
  }
  wake_.notify_all();
}

void Runner::cancel() {
  std::lock_guard lock(mutex_);
  queue_.clear();
  if (running_) cancel_ = true;
}

std::vector<RunEvent> Runner::poll() {
  std::lock_guard lock(mutex_);
  std::vector<RunEvent> out;
  out.swap(events_);
  return out;
}

bool Runner::busy() const {
  std::lock_guard lock(mutex_);
  return running_ || !queue_.empty();
}

void Runner::publish(RunEvent event) {
  std::lock_guard lock(mutex_);
  events_.push_back(std::move(event));
}

void Runner::loop() {
  for (;;) {
    RunRequest request;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      request = std::move(queue_.front());
      queue_.pop_front();
      running_ = true;
      cancel_ = false;
    }
    done_ = 0;
    expected_ = expected_measurements(request);
    bool gpu_failed = false;
    RunCallbacks callbacks;
    callbacks.on_result = [&](const Result& r) {
      ++done_;
      gpu_failed |= r.backend == Backend::gpu && r.status == Status::error;
      publish({RunEvent::Kind::result, r, {}, false});
    };
    callbacks.on_note = [&](const std::string& note) { publish({RunEvent::Kind::note, {}, note, false}); };
    callbacks.cancelled = [this] { return cancel_.load(); };
    try {
      execute_(request, callbacks);
    } catch (const std::exception& e) {
      publish({RunEvent::Kind::error, {}, e.what(), false});
    }
    // A GPU error can leave the CUDA context unusable (an illegal address is sticky): find out,
    // reset once, and if that does not help, tell the app to stop offering the GPU.
    if (gpu_failed) {
      const DeviceRecovery recovery = recover_device();
      if (!recovery.message.empty()) {
        publish({recovery.usable ? RunEvent::Kind::note : RunEvent::Kind::gpu_disabled, {}, recovery.message, false});
      }
    }
    const bool was_cancelled = cancel_.load();
    {
      std::lock_guard lock(mutex_);
      running_ = false;
      events_.push_back({RunEvent::Kind::finished, {}, {}, was_cancelled});
    }
  }
}

}  // namespace gpulab::app
