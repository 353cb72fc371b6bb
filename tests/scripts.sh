#!/bin/sh
# scripts.sh - what scripts/quickstart.sh decides to build, with stand-ins
# for nvcc and nvidia-smi: CUDA code only for the GPUs present, none without
# a GPU (compiling it for five architectures takes minutes).
. "${top_srcdir:-.}/tests/tap.sh"
. "$srcdir/scripts/build-choice.sh"
cd "$work" || exit 1
mkdir bin
printf '#!/bin/sh\necho "Cuda compilation tools, release 13.0"\n' > bin/nvcc
chmod +x bin/nvcc
PATH=$work/bin:$PATH
export PATH

# nvidia-smi as it answers without a driver
printf '#!/bin/sh\necho "NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver."\nexit 9\n' > bin/nvidia-smi
chmod +x bin/nvidia-smi
check "no GPU: the CPU-only library" test "$(gbt_build_choice 2> why.txt)" = cpu
check "and it says so, and how to build CUDA code for GPUs elsewhere" \
    sh -c 'grep -q "no NVIDIA GPU here" why.txt && grep -q -- "--with-cuda-arch=" why.txt'

# nvidia-smi with one H100
printf '#!/bin/sh\necho "9.0"\n' > bin/nvidia-smi
check "one GPU of compute capability 9.0: CUDA code for 90 only" test "$(gbt_build_choice 2> /dev/null)" = 90

# nvidia-smi with two kinds of GPU, one of them twice
printf '#!/bin/sh\nprintf "8.6\\n9.0\\n8.6\\n"\n' > bin/nvidia-smi
check "GPUs of 8.6 and 9.0: CUDA code for both" test "$(gbt_build_choice 2> /dev/null)" = "86 90"

# issue 38, finding 10: check.sh's reconfiguring of a quickstart tree says that
# it discards that build and about how long the rebuild takes
awk '/gbt_cuda_left_out; then/ { on = 1 } on && /gbt_step/ { print } /^fi/ { on = 0 }' "$srcdir/scripts/check.sh" > reconf.txt
check "check.sh says it discards the quickstart build, and how long rebuilding takes" \
    sh -c 'grep -q "discards" reconf.txt && grep -q "make clean" reconf.txt && grep -Eq "minute" reconf.txt'
done_testing
