#pragma once
// The emulator's <cuda_bf16.h>: __nv_bfloat16 and __nv_bfloat162 with their conversions and
// arithmetic (computed in float, rounded to bfloat16).
#include "cuda_runtime.h"
#include "emulator/language/half.hpp"
