/* The emulator's CUDA runtime (tests/cuda-emu/emu.h). */
#include "../emu.h"
