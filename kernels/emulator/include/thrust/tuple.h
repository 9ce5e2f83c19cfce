#pragma once
// Thrust on the emulator: refused here, at compile time, with the reason — the toolkit's Thrust
// would be found otherwise, and fail deep inside its own headers.
#error \
    "GPU Lab's emulator does not run Thrust (<thrust/tuple.h>): run this program on a GPU (gpulab_run --gpu), or write the kernels it would launch: lesson 13's reduction, lesson 15's scan, lesson 14's histogram"
