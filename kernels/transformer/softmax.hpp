#pragma once
// Softmax over the rows of a rows × cols matrix, y[r][c] = e^(x[r][c] − m_r) / Σ_c' e^(x[r][c'] − m_r)
// with m_r the row's maximum (subtracting it changes nothing mathematically and keeps every e^
// at most 1, so logits of 1e4 do not overflow). A row of −inf gives NaN, as PyTorch does.
#include <cstddef>
#include <span>

namespace gpulab::transformer {

// One CPU thread, a row at a time: its maximum, the sum of e^(x − m), then each output.
void softmax_cpu_rows(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transformer

// The GPU launchers: spans of device memory, queued on the device the thread chose (common/backend.hpp).
namespace gpulab::transformer {

// A thread per row, three passes over its row: each warp's 32 threads read 32 rows apart.
void softmax_thread_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);
// A block per row: every pass coalesced, the maximum and the sum reduced in shared memory.
void softmax_block_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);
// A warp per row: the reductions by shuffles, no shared memory and no block barrier.
void softmax_warp_row(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);
// A block per row, one pass for the maximum and the sum together (the online softmax), then
// the outputs: two reads of the row instead of three.
void softmax_online(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);
// softmax_online with 16-byte float4 loads and stores where the rows allow them (cols a
// multiple of 4; otherwise softmax_online does it).
void softmax_online_float4(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);
// The row read once into registers (float4, up to 32768 floats), then its maximum, e^(x − m)
// once an element and the sum, and the scaled outputs; longer rows or rows of no multiple of 4
// go to softmax_online_float4.
void softmax_registers(std::span<const float> x, std::span<float> y, std::size_t rows, std::size_t cols);

}  // namespace gpulab::transformer
