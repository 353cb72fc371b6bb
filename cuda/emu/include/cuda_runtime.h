/* The emulator's CUDA runtime (cuda/emu/emu.h). */
#include "../emu.h"
