/* The emulator's CUB subset (cuda/emu/cub.h). */
#include "../../../cub.h"
