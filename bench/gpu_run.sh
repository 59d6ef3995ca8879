#!/usr/bin/env bash
# The GPU check of the matmul and op work, in one command on a CUDA machine
# (built there: a binary built without a GPU is for that machine), from the
# repository root with node on PATH and dist/ built:
#   bash bench/gpu_run.sh [--no-bench]
# 1. builds the addon; 2. runs the C++ CUDA gemm tests (cuBLAS and the
# built-in kernel against a float64 reference); 3. runs the CUDA-vs-CPU jest
# suites; 4. runs the op benchmark against PyTorch on cuda:0 in the same run
# (bench/results/ops_cuda_0.{json,md}), copied to $OUT when that is set.
# Every step runs even when an earlier one fails; the exit status is the
# number of failed steps.
set -uo pipefail
cd "$(dirname "$0")/.."
failed=0
step() {
  echo "=== $*"
  "$@" || { echo "=== FAILED: $*"; failed=$((failed + 1)); }
}
step node node_modules/cmake-js/bin/cmake-js compile --log-level warn
step ./build/Release/tsgpu_cuda_gemm_tests
step node node_modules/jest/bin/jest.js --ci dist/test/native/cuda   # every CUDA suite (cuda*.test.js)
if [ "${1:-}" != "--no-bench" ]; then
  step node dist/bench/ops_bench.js --device cuda:0 --python "${PYTHON:-python3}" --rounds 5
  if [ -n "${OUT:-}" ]; then cp bench/results/ops_cuda_0.json bench/results/ops_cuda_0.md "$OUT"/ 2>/dev/null || true; fi
fi
echo "=== $failed step(s) failed"
exit "$failed"
