#!/usr/bin/env bash
# Real measurements of this machine's device variants for the selector (issue 5):
# `everypath autotune` on 7 operators x 4 sizes, built for x86-64 baseline/v2/v3/v4, each
# with one thread and with all of them: 8 devices of one machine, each labelled as such.
# Usage: bench/collect_real_lake.sh LAKE_DIR   (about 15 minutes on 2 cores)
set -euo pipefail
lake=${1:?usage: bench/collect_real_lake.sh LAKE_DIR}
cd "$(dirname "$0")/.."
.venv/bin/everypath autotune \
  --ops numpy.matmul,numpy.sum,numpy.sort,numpy.cumsum,numpy.exp,numpy.linalg.solve,cv2.GaussianBlur \
  --sizes 1000,10000,100000,300000 --repeats 7 --warmup 2 \
  --isa baseline,v2,v3,v4 --threads 1,all --lake "$lake"
