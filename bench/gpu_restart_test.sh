#!/usr/bin/env bash
# The restart test through a real Jupyter server on a CUDA machine that has no
# Jupyter packages: 50 restarts of a tsgpu kernel holding 4 GiB on cuda:0,
# with the device's used memory read by nvidia-smi after each
# (test/e2e/jupyter_server.test.ts, its cuda:0 case).
#
#   bash bench/gpu_restart_test.sh [ARCHIVE]      (default .carry/py.tar.xz)
#
# ARCHIVE is a bundle made by `bench/portable_python.sh --server ARCHIVE` on
# Debian. Run it from the checkout, with node on PATH, after the TypeScript
# build (dist/) and a native build on this machine (so that the addon has its
# CUDA backend). It unpacks ARCHIVE into a fresh folder, puts the bundle's
# jupyter-server alone first on PATH (its python3 stays off PATH, so that the
# host's Python is untouched), and runs the case with TSGPU_RESTARTS (default
# 50). The figures go to TSGPU_RELIABILITY_RESULTS (default
# bench/results/reliability.json), section restarts_jupyter_server_cuda.
# Exits non-zero when the case fails or does not run (no GPU, no nvidia-smi,
# an addon without CUDA: the test skips and says why).
set -euo pipefail

archive=${1:-.carry/py.tar.xz}
E2E=dist/test/e2e/jupyter_server.test.js
die() { echo "gpu_restart_test: $*" >&2; exit 1; }

[ -f "$archive" ] || die "expected a bundle from bench/portable_python.sh --server at $archive"
[ -f "$E2E" ] || die "expected $E2E: run this from the checkout after npm run build:ts"
[ -f node_modules/jest/bin/jest.js ] || die "expected node_modules/jest in $(pwd)"
command -v node >/dev/null || die "node is not on PATH"
command -v nvidia-smi >/dev/null || die "nvidia-smi is not on PATH: the test reads the device's used memory with it"

cuda=$(node -e 'const t = require("./dist/native/index"); console.log(t.cuda.isAvailable() ? "" : t.cuda.unavailableReason())') \
  || die "the native addon did not load (build it here: node node_modules/cmake-js/bin/cmake-js compile)"
[ -z "$cuda" ] || die "the native addon has no CUDA device here: $cuda"

dir=${TMPDIR:-/tmp}/tsgpu-jupyter-server
rm -rf "$dir"
mkdir -p "$dir/bundle" "$dir/bin"
tar -xJf "$archive" -C "$dir/bundle"
[ -x "$dir/bundle/bin/jupyter-server" ] || die "$archive has no bin/jupyter-server: make it with bench/portable_python.sh --server"
ln -s "$dir/bundle/bin/jupyter-server" "$dir/bin/jupyter-server"
export PATH="$dir/bin:$PATH"
# Only the bundle's folders on its Python's path: a PYTHONPATH or PYTHONHOME
# meant for the host's Python would bring the host's modules in.
unset PYTHONPATH PYTHONHOME
[ "$(command -v jupyter-server)" = "$dir/bin/jupyter-server" ] || die "jupyter-server resolves to $(command -v jupyter-server)"
version=$(jupyter-server --version 2>&1) || die "the bundle's jupyter-server does not run here: $version"
echo "gpu_restart_test: jupyter-server $version from $archive ($(stat -c %s "$archive") bytes), $(nvidia-smi --query-gpu=name,memory.used,memory.total --format=csv,noheader -i 0)"

export TSGPU_RESTARTS=${TSGPU_RESTARTS:-50}
export TSGPU_RELIABILITY_RESULTS=${TSGPU_RELIABILITY_RESULTS:-bench/results/reliability.json}
log=$dir/jest.txt
status=0
node node_modules/jest/bin/jest.js --ci --verbose "$E2E" -t "cuda:0" 2>&1 | tee "$log" || status=$?
[ "$status" -eq 0 ] || die "the cuda:0 case failed (jest exit status $status)"
grep -qE "^Tests: .*1 passed" "$log" || die "the cuda:0 case did not run (skipped)"
echo "gpu_restart_test: $TSGPU_RESTARTS restarts on cuda:0 passed; figures in $TSGPU_RELIABILITY_RESULTS (restarts_jupyter_server_cuda)"
