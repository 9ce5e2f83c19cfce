#pragma once
// The emulator's <device_launch_parameters.h>: part of its <cuda_runtime.h>.
#include "cuda_runtime.h"
