#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build the cuda-path kernels and run them against
# the host reference (tests/variants/cuda/check_kernels.cu). Exit 0 = all agree.
set -euo pipefail
cd "$(dirname "$0")/.."
arch="${CUDA_ARCH:-native}"
out="${OUT:-/tmp}/check_kernels"
nvcc -std=c++17 --extended-lambda -O2 -arch="$arch" -Ivariants/include tests/variants/cuda/check_kernels.cu -o "$out"
"$out"
