// The observers of a launch (observer.hpp): the checker in front, the memory counter and the
// shared-memory step recorder behind it — listed here, once, so no other file names them.
#include "emulator/observers/observer.hpp"

#include <array>

#include "emulator/observers/checker.hpp"
#include "emulator/observers/memory_counter.hpp"
#include "emulator/observers/shared_steps.hpp"

namespace gpulab::emulated::observe {

unsigned watching_behind = 0;

namespace {

// Those behind the checker that watch the running launch (the first watching_behind).
std::array<Observer*, 2> behind;

template <typename Event>
void tell_all(Event&& event) {
  event(check::observer());
  for (unsigned i = 0; i < watching_behind; ++i) event(*behind[i]);
}

}  // namespace

void begin_launch(const LaunchShape& launch) {
  watching_behind = 0;
  for (Observer* o : {&memory_counter::observer(), &shared_steps::observer()}) {
    if (o->watches()) behind[watching_behind++] = o;
  }
  tell_all([&](Observer& o) { o.begin_launch(launch); });
}

void end_launch() {
  tell_all([](Observer& o) { o.end_launch(); });
  watching_behind = 0;
}

void end_block() {
  tell_all([](Observer& o) { o.end_block(); });
}

void barrier(const char* file, int line) {
  tell_all([&](Observer& o) { o.barrier(file, line); });
}

void warp_exchange(unsigned warp, const std::uint64_t* slots, unsigned lanes) {
  for (unsigned i = 0; i < watching_behind; ++i) behind[i]->warp_exchange(warp, slots, lanes);
}

void hand_on(const MemoryAccess& access) {
  for (unsigned i = 0; i < watching_behind; ++i) behind[i]->access(access);
}

}  // namespace gpulab::emulated::observe
