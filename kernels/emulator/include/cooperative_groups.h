#pragma once
// The emulator's <cooperative_groups.h>: thread blocks, warp tiles and their collectives.
#include "cuda_runtime.h"
#include "emulator/language/cooperative_groups.hpp"
