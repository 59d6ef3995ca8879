#!/usr/bin/env bash
# Runs every notebook of notebooks/ on a CUDA machine and leaves them, executed, with their outputs and the
# figures their texts quote, in notebooks/ (and under $OUT/notebooks when OUT is set), ready to be committed.
# From the repository root, with node on PATH and node_modules there; on the GPU machine:
#   bash .carry/unpack.sh && export PATH=/tmp/nodebin:$PATH && bash bench/gpu_notebooks.sh
# 1. builds the addon (a binary built without a GPU is for that machine) and, when dist/ did not come along,
#    the TypeScript; 2. stops unless torch.cuda.isAvailable() (outputs of a CPU run are not what is wanted here);
# 3. runs the notebooks through `tsgpu run` (scripts/run-notebooks.js --runner tsgpu: no Jupyter there), each
#    notebook's time printed; 4. checks the filled figures against the outputs (test/scripts/notebook_figures).
# The exit status is that of the first step that failed.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "=== build"
node node_modules/cmake-js/bin/cmake-js compile --log-level warn
if [ ! -f dist/kernel/cli.js ]; then node scripts/gen_native_tables.js && node node_modules/typescript/bin/tsc -p tsconfig.json; fi
echo "=== device"
node -e 'const t = require("./dist/native/index"); if (!t.cuda.isAvailable()) { console.error("CUDA unavailable: " + t.cuda.unavailableReason()); process.exit(1); }
  console.log(t.cuda.deviceCount() + " × " + t.cuda.getDeviceProperties(0).name);'
echo "=== notebooks"
start=$(date +%s)
status=0
node scripts/run-notebooks.js --runner tsgpu --timeout 120 || status=$?   # a stuck cell fails at 2 minutes, leaving time to copy what ran
echo "=== all notebooks: $(( $(date +%s) - start )) s"
if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/notebooks" && cp notebooks/*.ipynb "$OUT/notebooks/"; fi
[ "$status" -eq 0 ] || exit "$status"
echo "=== figures"
node node_modules/jest/bin/jest.js --ci dist/test/scripts/notebook_figures.test.js
