#pragma once
// Mixed precision: matrices stored in 16 bits (FP16 or BF16), multiplied on the tensor cores with
// FP32 accumulation. The CPU side (rounding to a 16-bit format, to see its error anywhere) and the
// GPU launchers (GPU builds only), row-major like lesson 05: A is m × k, B is k × n, C is m × n.
#include <cstdint>
#include <span>

namespace gpulab::mixed {

// The formats a matrix can be stored in, and what each keeps of a float.
enum class Storage { fp16, bf16 };
const char* to_string(Storage s);

// `x` rounded to the nearest value of the format (ties to even), back as a float: FP16 keeps 10
// bits of fraction and overflows past 65504; BF16 keeps 7 bits and float's range; TF32 (what the
// tensor cores read of a float in TF32 mode) keeps 10 bits and float's range.
float round_to_fp16(float x);
float round_to_bf16(float x);
float round_to_tf32(float x);
// The relative error of rounding once: 2^-11 (FP16, TF32) or 2^-8 (BF16).
double unit_roundoff(Storage s);

// The bit pattern of the 16-bit value nearest to x, as the GPU stores it.
std::uint16_t fp16_bits(float x);
// The value of FP16 bit patterns (fp16_bits' inverse): what a GPU's FP16 array holds, on the CPU.
float fp16_value(std::uint16_t bits);
std::uint16_t bf16_bits(float x);

}  // namespace gpulab::mixed
