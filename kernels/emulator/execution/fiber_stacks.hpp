#pragma once
// Where the emulator's fibers keep their stacks (scheduler.cpp): a pool per worker, each stack
// begun at a different depth below its top. Internal to execution.
#include <boost/context/pooled_fixedsize_stack.hpp>
#include <cstddef>

namespace gpulab::emulated::detail {

namespace ctx = boost::context;

// Fiber stacks come from a pool per worker, so starting a block's threads allocates nothing new
// after the first blocks. 256 KiB each: far more than a kernel's locals need.
inline ctx::pooled_fixedsize_stack& stack_pool() {
  thread_local ctx::pooled_fixedsize_stack pool(256 * 1024);
  return pool;
}

// Each fiber's stack begins a different number of 256-byte steps (boost aligns its record to 256)
// below the top of its piece of the pool, up to 64 KiB. The pool's pieces lie whole multiples of
// 256 KiB apart, so every fiber's working frames would otherwise fall on the same few sets of the
// caches, and at a barrier, where a block's threads take turns, each switch would find its frames
// evicted by the others': a block of 1024 threads (lesson 05's shared_tiles, the CUDA samples'
// matrixMul) ran 1.2-1.35x slower; a block of 256 showed no difference. The pool frees a stack
// from sp - size, which the shift leaves where it was.
class ShiftedStacks {
 public:
  ctx::stack_context allocate() {
    thread_local unsigned next = 0;
    ctx::stack_context stack = pool_.allocate();
    const unsigned k = next++;
    const std::size_t shift = (k % 256) * 256;
    stack.sp = static_cast<char*>(stack.sp) - shift;
    stack.size -= shift;
    return stack;
  }
  void deallocate(ctx::stack_context& stack) noexcept { pool_.deallocate(stack); }

 private:
  ctx::pooled_fixedsize_stack pool_ = stack_pool();  // (a copy shares the worker's pool)
};

}  // namespace gpulab::emulated::detail
