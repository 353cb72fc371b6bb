/* The emulator's CUB subset (tests/cuda-emu/cub.h). */
#include "../../../cub.h"
