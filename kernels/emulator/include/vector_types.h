#pragma once
// The emulator's <vector_types.h>: part of its <cuda_runtime.h>.
#include "cuda_runtime.h"
