#pragma once
// The emulator's <cuda_runtime_api.h>: part of its <cuda_runtime.h>.
#include "cuda_runtime.h"
