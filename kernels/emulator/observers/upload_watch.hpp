#pragma once
// What the host handed to the device while a grader watched (GPU Lab's, not CUDA's): so the
// grader can tell outputs a kernel computed from outputs the host computed and copied over.
// While watching, the emulator keeps the bytes of every copy from host memory into device memory
// (cudaMemcpy in all its forms, cudaMemcpyToSymbol) and the last contents of host memory a kernel
// may read directly (cudaMallocHost, cudaHostAlloc, cudaMallocManaged buffers made meanwhile) —
// except the grader's own input arrays; and, for output arrays in host memory, which of their
// bytes a copy from the device wrote.
#include <cstddef>
#include <utility>
#include <vector>

namespace gpulab::emulated::rt {

using HostRange = std::pair<const void*, std::size_t>;

// Starts watching (forgetting what an earlier watch kept). `grader_inputs`: host arrays the
// program's own inputs lie in, whose copies are no host work; `host_outputs`: output arrays in
// host memory, which only copies from the device may fill.
void watch_uploads(const std::vector<HostRange>& grader_inputs, const std::vector<HostRange>& host_outputs);
void stop_watching_uploads();

// The share (0 to 1) of an output's values found in what the host handed over: its 32-byte
// windows (the whole output when shorter) that also occur in a kept upload, of those windows
// that hold more than one value (an all-zero window proves nothing).
double share_uploaded(const void* output, std::size_t bytes);

// Of an output array in host memory: the bytes no copy from the device wrote and that no longer
// hold `poison` (the host wrote them).
std::size_t bytes_written_by_host(const void* output, std::size_t bytes, unsigned char poison);

// The runtime's hooks (nothing happens while no watch is on).
namespace uploads {
void copied(void* dst, const void* src, std::size_t bytes, bool dst_device, bool src_device);
void host_visible(const void* p, std::size_t bytes);  // a cudaMallocHost or managed buffer made
void releasing(const void* p);                        // about to be freed: its contents are kept
}  // namespace uploads

}  // namespace gpulab::emulated::rt
