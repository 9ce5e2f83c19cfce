#pragma once
// The emulator's <cooperative_groups/scan.h>: cg::inclusive_scan and cg::exclusive_scan over a warp tile.
#include "cooperative_groups.h"
