#pragma once
// The emulator's <device_functions.h>: part of its <cuda_runtime.h>.
#include "cuda_runtime.h"
