#pragma once
// The emulator's <cuda_fp16.h>: __half and __half2 with their conversions and arithmetic
// (computed in float, rounded to half, as the GPU's results are).
#include "cuda_runtime.h"
#include "emulator/language/half.hpp"
