#pragma once
// The emulator's <cooperative_groups/reduce.h>: cg::reduce over a warp tile.
#include "cooperative_groups.h"
