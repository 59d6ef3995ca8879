#!/usr/bin/env bash
# A Python for the kernel benchmark, or a jupyter-server, on a host without
# Debian's Jupyter packages.
#
# The benchmark harnesses (bench/kernel_bench.py, bench/typed_bench.py) run
# under Debian's /usr/bin/python3 with python3-jupyter-client, python3-zmq and
# python3-ipykernel, and the python3 peer is that ipykernel; the end-to-end
# test test/e2e/jupyter_server.test.ts runs Debian's jupyter-server
# (python3-jupyter-server). This script packs this machine's Python
# interpreter, its standard library and exactly the Debian modules those
# programs import (found by running them, see step 2) with the shared
# libraries they need, into one relocatable archive for another x86_64 Linux
# host with the same or a newer glibc:
#
#   bench/portable_python.sh OUT.tar.xz            (here, on Debian)
#   bench/portable_python.sh --server OUT.tar.xz   (here, after npm run build)
#
#   mkdir -p /tmp/py && tar -xJf OUT.tar.xz -C /tmp/py     (there)
#   /tmp/py/bin/python3 bench/kernel_bench.py ...
#   TSGPU_BENCH_PYTHON=/tmp/py/bin/python3 npm run bench:kernel
#   PATH=/tmp/py/bin:$PATH node node_modules/jest/bin/jest.js dist/test/e2e/jupyter_server.test.js  (--server)
#
# Without --server (kernel mode) the bundle is for the harnesses and ipykernel:
# the whole standard library, the modules they import, byte code. With
# --server it is for jupyter-server serving kernels, as small as it goes (a
# few MiB, to travel with a checkout): the modules the server imported while
# the end-to-end test's CPU case drove it through the client JupyterLab uses
# (start, cells, interrupt, restarts, shutdown), but none of OPTIONAL (below),
# which the server imports only when present; of the standard library only
# the files that run imported; no tests, type stubs, C sources, translations
# or web assets; sources without docstrings and comments (line numbers kept,
# see portable_python/strip_sources.py); no byte code.
#
# The archive is a prefix:
#   bin/python3          sh wrapper: PYTHONHOME = the bundle, the bundle's lib/
#                        first on LD_LIBRARY_PATH, then bin/python3.11 -s "$@"
#                        (-s: no ~/.local site-packages)
#   bin/python3.11       the interpreter
#   bin/jupyter-server   (--server) sh wrapper: bin/python3 -m jupyter_server "$@"
#   lib/python3.X/       standard library (kernel mode: all of it but tests,
#                        idlelib, tkinter, ensurepip, lib2to3, turtledemo,
#                        config-*, caches; --server: what the run imported)
#   lib/python3/dist-packages/  the Debian modules used, their metadata
#                        (entry points: jupyter_client's provisioners), and
#                        _portable_python.pth, which gives Python's children
#                        the caller's PYTHONHOME and LD_LIBRARY_PATH back and
#                        makes sys.executable bin/python3, so that a kernel it
#                        starts is the bundle's Python again while anything
#                        else (Node.js, another Python) sees the caller's
#                        environment
#   lib/*.so*            shared libraries of the interpreter and the modules,
#                        but not glibc's nor libstdc++/libgcc_s (the host's,
#                        newer, serve; an older copy first on the library path
#                        would break other programs)
#   share/jupyter/kernels/python3/  (kernel mode) ipykernel's kernelspec, argv
#                        "python3", which jupyter_client runs as sys.executable
# In kernel mode byte code is included for the modules the run in step 2
# imported, so a first kernel start there is not slower than the next ones;
# the unpacked folder may stay read-only.
#
# Before packing, the bundle is checked here: every library any of its ELF
# files loads is in lib/ (or is glibc's, libstdc++ or libgcc_s), and, in an
# empty environment, its Python sees only its own folders and finds the
# provisioner; kernel mode: it finds the kernelspec and runs cells in an
# ipykernel; --server: the end-to-end test passes against the bundle's
# jupyter-server with a PATH on which no other Python or Jupyter command is,
# and every module file that server loaded is the bundle's.
set -euo pipefail

usage="usage: $0 [--server] OUT.tar.xz"
mode=kernel
case "${1:-}" in
  -h|--help) echo "$usage"; exit 0 ;;
  --server) mode=server; shift ;;
esac
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }

PY=/usr/bin/python3
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ROOT=$(dirname "$BENCH")
HERE=$BENCH/portable_python    # the Python parts of this script
OUT=$(realpath -m "$1")
E2E=dist/test/e2e/jupyter_server.test.js
# Imported by the server only when present (each inside try/except ImportError),
# left out (--server): notebook (jupyter_server.prometheus shares its metrics;
# contents managers derived from it), IPython (jupyter_client adds
# ~/.ipython/kernels to the kernelspec folders), gi (send2trash's GIO backend;
# its own one serves), curses (tornado's coloured log), bz2 and lzma (shutil,
# zipfile, tarfile compression), _uuid (uuid's C helper).
OPTIONAL="notebook IPython gi curses bz2 lzma _uuid"

die() { echo "portable_python: $*" >&2; exit 1; }
say() { echo "portable_python: $*" >&2; }

for tool in ldd tar xz readlink realpath; do
  command -v "$tool" >/dev/null || die "$tool is needed"
done
[ -x "$PY" ] || die "$PY not found"
modules="zmq:python3-zmq jupyter_client:python3-jupyter-client"
if [ $mode = kernel ]; then modules+=" ipykernel:python3-ipykernel"; else modules+=" jupyter_server:python3-jupyter-server"; fi
for mod in $modules; do
  "$PY" -c "import ${mod%%:*}" 2>/dev/null \
    || die "$PY cannot import ${mod%%:*}; install Debian's ${mod#*:} (apt-get install ${mod#*:})"
done
if [ $mode = server ]; then
  NODE=$(command -v node) || die "--server runs the end-to-end test: node is needed"
  [ -f "$ROOT/$E2E" ] && [ -d "$ROOT/node_modules/jest" ] \
    || die "--server runs the end-to-end test: expected $ROOT/$E2E and $ROOT/node_modules/jest (npm install, npm run build)"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/portable-python.XXXXXX")
trap 'rm -rf "$work" "$OUT.partial"' EXIT
stage=$work/root
mkdir -p "$stage/bin" "$stage/lib" "$work/home" "$work/trace"

# Python runs here get an empty environment (and a scratch HOME, so that no
# profile or kernelspec of the user's takes part and nothing is written there).
clean_env() { env -i HOME="$work/home" PATH=/usr/bin:/bin "$@"; }

# ---- 1. The interpreter and its standard library -----------------------------
eval "$(clean_env "$PY" -c '
import os, shlex, sys, sysconfig
for name, value in (("VER", "%d.%d" % sys.version_info[:2]), ("PREFIX", sys.prefix),
                    ("STDLIB", sysconfig.get_path("stdlib")), ("REAL", os.path.realpath(sys.executable))):
    print(f"{name}={shlex.quote(value)}")
')"
DIST=$PREFIX/lib/python3/dist-packages          # Debian's site folder
[ -d "$DIST/jupyter_client" ] || die "expected jupyter_client in $DIST (Debian's python3-jupyter-client)"
say "Python $VER from $REAL, standard library $STDLIB, modules from $DIST"

cp -p "$REAL" "$stage/bin/python$VER"
mkdir -p "$stage/lib/python$VER"
if [ $mode = kernel ]; then
  tar -C "$STDLIB" -cf - \
      --exclude=test --exclude=tests --exclude=idle_test \
      --exclude=./idlelib --exclude=./tkinter --exclude=./turtle.py --exclude=./turtledemo \
      --exclude=./ensurepip --exclude=./lib2to3 --exclude=__pycache__ \
      --exclude='./config-*' --exclude=./dist-packages --exclude=./site-packages \
      --exclude=./sitecustomize.py \
      --exclude='./lib-dynload/_test*' --exclude='./lib-dynload/_ctypes_test*' \
      --exclude='./lib-dynload/_xxtestfuzz*' --exclude='./lib-dynload/xxlimited*' \
      --exclude='./lib-dynload/_tkinter*' \
      . | tar -C "$stage/lib/python$VER" -xf -
fi  # (--server: after step 2, only what the run imported)
SITE=$stage/lib/python3/dist-packages
mkdir -p "$SITE"

cat > "$stage/bin/python3" <<EOF
#!/bin/sh
# Python $VER of a portable bundle (made by bench/portable_python.sh): runs
# bin/python$VER with the bundle as its home and the bundle's libraries first.
root=\$(dirname "\$(dirname "\$(readlink -f "\$0")")")
# What the caller had, for lib/python3/dist-packages/_portable_python.py to give
# back to the programs this Python starts ("=value", or empty when it was unset).
if [ -n "\${PYTHONHOME+set}" ]; then PORTABLE_PYTHON_PYTHONHOME="=\$PYTHONHOME"; else PORTABLE_PYTHON_PYTHONHOME=; fi
if [ -n "\${LD_LIBRARY_PATH+set}" ]; then PORTABLE_PYTHON_LD_LIBRARY_PATH="=\$LD_LIBRARY_PATH"; else PORTABLE_PYTHON_LD_LIBRARY_PATH=; fi
export PORTABLE_PYTHON_PYTHONHOME PORTABLE_PYTHON_LD_LIBRARY_PATH
export PYTHONHOME="\$root"
export LD_LIBRARY_PATH="\$root/lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
exec "\$root/bin/python$VER" -s "\$@"
EOF
chmod 755 "$stage/bin/python3"

cat > "$SITE/_portable_python.py" <<'EOF'
"""Part of a portable Python bundle (bin/python3 sets PYTHONHOME and
LD_LIBRARY_PATH for it): gives the programs this Python starts the values the
caller had, and makes sys.executable bin/python3, so that a Python started
from this one (an ipykernel: kernelspec argv "python3") is the bundle again."""
import os
import sys


def _restore():
    for name in ("PYTHONHOME", "LD_LIBRARY_PATH"):
        saved = os.environ.pop("PORTABLE_PYTHON_" + name, None)
        if saved is None:  # not started through bin/python3
            continue
        if saved.startswith("="):
            os.environ[name] = saved[1:]
        else:
            os.environ.pop(name, None)
    wrapper = os.path.join(sys.prefix, "bin", "python3")
    if os.path.isfile(wrapper):
        sys.executable = wrapper


_restore()
EOF
echo "import _portable_python" > "$SITE/_portable_python.pth"

if [ $mode = kernel ]; then
  # ipykernel's kernelspec (its logos and kernel.json), run as sys.executable.
  clean_env PYDEVD_DISABLE_FILE_VALIDATION=1 "$PY" -c '
import sys
from ipykernel.kernelspec import write_kernel_spec
write_kernel_spec(sys.argv[1], overrides={"argv": ["python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"]})
' "$stage/share/jupyter/kernels/python3"
else
  cat > "$stage/bin/jupyter-server" <<'EOF'
#!/bin/sh
# Jupyter's server from a portable Python bundle (made by bench/portable_python.sh --server).
exec "$(dirname "$(readlink -f "$0")")/python3" -m jupyter_server "$@"
EOF
  chmod 755 "$stage/bin/jupyter-server"
fi

# ---- 2. Which Debian modules: run the programs and list what they import -----
# portable_python/trace_imports.py, as sitecustomize.py (imported after site
# and the .pth files), writes at exit the file of every module loaded;
# PYTHONPATH passes it on to the Pythons a run starts, which are shut down by
# request so that they exit by themselves and write too.
cp "$HERE/trace_imports.py" "$work/trace/sitecustomize.py"
if [ $mode = kernel ]; then
  say "running ipykernel under $PY to see what it and the harness import"
  clean_env PYTHONPATH="$work/trace" PORTABLE_PYTHON_TRACE="$work/trace.log" PYTHONDONTWRITEBYTECODE=1 \
    JUPYTER_PATH="$stage/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 \
    "$PY" "$HERE/drive_kernel.py" "$BENCH" || die "the traced run of ipykernel failed"
  grep -q "/ipykernel/ipkernel.py\$" "$work/trace.log" || die "the module list lacks ipykernel.ipkernel"
else
  # The end-to-end test's CPU case (a cell, %memory, an interrupt, 5 restarts)
  # against Debian's server, with OPTIONAL made unimportable.
  mkdir -p "$work/tracebin"
  printf '#!/bin/sh\nexec %s -m jupyter_server "$@"\n' "$PY" > "$work/tracebin/jupyter-server"
  chmod 755 "$work/tracebin/jupyter-server"
  say "running $E2E against $PY -m jupyter_server to see what the server imports"
  (cd "$ROOT" && clean_env PATH="$work/tracebin:/usr/bin:/bin" PYTHONPATH="$work/trace" \
      PORTABLE_PYTHON_TRACE="$work/trace.log" PORTABLE_PYTHON_BLOCK="$OPTIONAL" PYTHONDONTWRITEBYTECODE=1 \
      TSGPU_RESTARTS=5 "$NODE" node_modules/jest/bin/jest.js --ci "$E2E" > "$work/e2e-trace.txt" 2>&1) \
    || die "the traced run of $E2E failed: $(tail -40 "$work/e2e-trace.txt")"
  grep -q "/jupyter_server/__main__.py\$" "$work/trace.log" || die "the module list lacks jupyter_server.__main__"
fi
[ -s "$work/trace.log" ] || die "the traced run wrote no module list"
[ $mode = server ] || [ "$(cut -f1 "$work/trace.log" | sort -u | wc -l)" -ge 2 ] || die "the kernel did not write its module list"

# From the list: what to copy (see portable_python/select_modules.py).
clean_env "$PY" "$HERE/select_modules.py" "$work" "$STDLIB" "$DIST" "$VER" "$BENCH" "$mode"

# Copied with links followed (Debian's debugpy links to pydevd's files beside it).
skip=(--exclude=__pycache__)
if [ $mode = server ]; then
  skip+=(--exclude=tests --exclude=test --exclude=benchmarks --exclude='*.pyi' --exclude=py.typed
         --exclude='*.pxd' --exclude='*.pxi' --exclude='*.pyx' --exclude='*.[ch]'
         --exclude='*.po' --exclude='*.pot' --exclude='*.mo' --exclude=jupyter_server/static)
  tar -C "$STDLIB" -cf - -T "$work/stdlib.txt" | tar -C "$stage/lib/python$VER" -xf -
fi
while IFS= read -r src; do
  tar -C "$(dirname "$src")" -chf - "${skip[@]}" "$(basename "$src")" | tar -C "$SITE" -xf -
done < "$work/copy.txt"

# ---- 3. Shared libraries -----------------------------------------------------
# glibc's (the host's own is newer) and libstdc++/libgcc_s (ditto, and an older
# copy first on LD_LIBRARY_PATH would break the C++ programs started from here).
from_host() {
  case "$1" in
    ld-linux*|libc.so.*|libm.so.*|libmvec.so.*|libpthread.so.*|libdl.so.*|librt.so.*|libresolv.so.*|\
    libutil.so.*|libanl.so.*|libnss_*|libthread_db.so.*|libBrokenLocale.so.*|libc_malloc_debug.so.*|\
    libstdc++.so.*|libgcc_s.so.*) return 0 ;;
  esac
  return 1
}
elf_files() {
  { echo "$stage/bin/python$VER"; find "$stage/lib" -type f \( -name '*.so' -o -name '*.so.*' \); } |
    while IFS= read -r f; do
      if [ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ]; then echo "$f"; fi
    done
}
elf_files | while IFS= read -r f; do
  ldd "$f" | awk -v f="$f" '$2 == "=>" { if ($3 == "not") print "MISSING " $1 " " f; else print $1 " " $3 }' \
    || die "ldd failed on $f"
done | sort -u > "$work/libs.txt"
if grep -q '^MISSING ' "$work/libs.txt"; then
  die "libraries not found here: $(grep '^MISSING ' "$work/libs.txt" | cut -d' ' -f2- | tr '\n' ';')"
fi
while read -r name path; do
  from_host "$name" || cp -L "$path" "$stage/lib/$name"
done < "$work/libs.txt"

# ---- 4. Byte code (kernel mode) or leaner sources (--server) ----------------
if [ $mode = kernel ]; then
  echo "lib/python3/dist-packages/_portable_python.py" >> "$work/compile.txt"
  clean_env PYTHONDONTWRITEBYTECODE=1 sh -c 'cd "$1" && "$1/bin/python3" -m compileall -q -i "$2" >/dev/null' _ "$stage" "$work/compile.txt" \
    || die "compiling the modules failed"
else
  say "$(clean_env "$PY" "$HERE/strip_sources.py" "$stage/lib")"
fi

# ---- 5. Checks ---------------------------------------------------------------
# Every library every ELF file here loads, with the bundle's lib/ first, is in lib/ or is the host's by choice.
elf_files | while IFS= read -r f; do
  deps=$(LD_LIBRARY_PATH="$stage/lib" ldd "$f") || die "ldd failed on $f"
  echo "$deps" | awk '$2 == "=>" { print $1 " " $3 }' | while read -r name path; do
    case "$path" in "$stage/lib/"*) ;; *) from_host "$name" || echo "$f needs $name from $path";; esac
  done
done > "$work/outside.txt"
[ ! -s "$work/outside.txt" ] || die "libraries from outside the bundle: $(cat "$work/outside.txt")"

say "checking the bundle in an empty environment"
clean_env PYTHONDONTWRITEBYTECODE=1 PYDEVD_DISABLE_FILE_VALIDATION=1 "$stage/bin/python3" - "$mode" < "$HERE/check_bundle.py" \
  || die "the bundle's check failed"
if [ $mode = server ]; then
  # The end-to-end test against the bundle's jupyter-server, on a PATH with
  # this machine's commands but no Python and no Jupyter command of its own;
  # the module list (the same tracing) shows where the server's modules came from.
  mkdir -p "$work/hostbin"
  for f in /usr/bin/* /bin/*; do
    case "${f##*/}" in python*|pydoc*|jupyter*|ipython*|ipykernel*) continue ;; esac
    [ -e "$work/hostbin/${f##*/}" ] || ln -s "$f" "$work/hostbin/${f##*/}"
  done
  : > "$work/trace.log"
  say "running $E2E against the bundle's jupyter-server"
  (cd "$ROOT" && clean_env PATH="$stage/bin:$work/hostbin" PYTHONNOUSERSITE=1 PYTHONPATH="$work/trace" \
      PORTABLE_PYTHON_TRACE="$work/trace.log" PYTHONDONTWRITEBYTECODE=1 \
      TSGPU_RESTARTS=5 "$NODE" node_modules/jest/bin/jest.js --ci "$E2E" > "$work/e2e-bundle.txt" 2>&1) \
    || die "$E2E failed against the bundle: $(tail -60 "$work/e2e-bundle.txt")"
  grep -qE "^Tests: .*[1-9][0-9]* passed" "$work/e2e-bundle.txt" || die "$E2E passed nothing against the bundle: $(tail -20 "$work/e2e-bundle.txt")"
  grep -q "	$stage/lib/python3/dist-packages/jupyter_server/__main__.py\$" "$work/trace.log" \
    || die "the server the test ran was not the bundle's"
  outside=$(cut -f3 "$work/trace.log" | grep -v "^$stage/" | grep -v "^$work/trace/" | sort -u || true)
  [ -z "$outside" ] || die "the bundle's server loaded modules from outside it: $outside"
  say "$E2E: $(grep -E "^Tests:" "$work/e2e-bundle.txt") against the bundle's jupyter-server, all $(cut -f3 "$work/trace.log" | sort -u | wc -l) module files from the bundle"
fi
[ $mode = kernel ] || find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} +  # (none should have been written)

# ---- 6. Pack -----------------------------------------------------------------
# xz's x86 filter before LZMA2 shrinks the ELF files by a tenth more.
say "packing $OUT"
tar -C "$stage" --owner=0 --group=0 --numeric-owner --sort=name -cf - bin lib $([ -d "$stage/share" ] && echo share) \
  | xz --x86 --lzma2=preset=9e -T2 > "$OUT.partial"
mv "$OUT.partial" "$OUT"
say "$OUT: $(stat -c %s "$OUT") bytes, $(du -h "$OUT" | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked); unpack with: mkdir -p DIR && tar -xJf $OUT -C DIR, then run DIR/bin/python3"
