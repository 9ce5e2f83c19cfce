#pragma once
// Lesson 10's timeline of one step: stamp() queues a one-thread kernel that writes the GPU's
// nanosecond clock (%globaltimer) into a slot of device memory when the stream reaches it. The
// GPUs of one machine keep that clock in step with each other (the driver sets it from the host's
// clock), so stamps taken on different GPUs share one time axis, which events (each timed against
// another event of its own GPU) do not give. GPU builds only.
#include <cuda_runtime_api.h>

#include <cstdint>

namespace gpulab::gpu::multi_gpu {

void stamp(std::uint64_t* slot, cudaStream_t stream);

}  // namespace gpulab::gpu::multi_gpu
