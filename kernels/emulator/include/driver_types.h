#pragma once
// The emulator's <driver_types.h>: part of its <cuda_runtime.h>.
#include "cuda_runtime.h"
