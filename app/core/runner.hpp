#pragma once
// The app's runner: one thread that executes run requests (a lesson, its variants, sizes) one after
// another and publishes every measurement as it arrives, so the UI thread never waits on a GPU or
// a long CPU run. Cancel stops after the current measurement.
#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "common/lesson.hpp"
#include "common/session.hpp"

namespace gpulab::app {

struct RunRequest {
  const Lesson* lesson = nullptr;
  Selection selection;
};

struct RunEvent {
  enum class Kind { result, note, error, finished, gpu_disabled };
  Kind kind = Kind::note;
  Result result;           // Kind::result
  std::string text;        // a note, the error, or why the GPU backend was disabled
  bool cancelled = false;  // Kind::finished
};

class Runner {
 public:
  // How a request is carried out; the default runs the lesson through the shared harness. Tests
  // pass their own.
  using Execute = std::function<void(const RunRequest&, const RunCallbacks&)>;
  static void run_with_harness(const RunRequest& request, const RunCallbacks& callbacks);

  explicit Runner(Execute execute = run_with_harness);
  ~Runner();  // cancels what runs, drops what waits, joins
  Runner(const Runner&) = delete;
  Runner& operator=(const Runner&) = delete;

  void submit(RunRequest request);
  void cancel();                 // the current request stops after its current measurement; queued ones are dropped
  std::vector<RunEvent> poll();  // the events published since the last poll, in order

  bool busy() const;  // a request runs or waits
  // Measurements done and expected in the current request (expected is 0 when unknown).
  std::size_t done() const { return done_; }
  std::size_t expected() const { return expected_; }

 private:
  void loop();
  void publish(RunEvent event);

  Execute execute_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<RunRequest> queue_;
  std::vector<RunEvent> events_;
  bool stopping_ = false;
  bool running_ = false;
  std::atomic<bool> cancel_{false};
  std::atomic<std::size_t> done_{0}, expected_{0};
  std::thread thread_;
};

// How many measurements a request makes: variants x backends x sizes x block sizes.
std::size_t expected_measurements(const RunRequest& request);

}  // namespace gpulab::app
