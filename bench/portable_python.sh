#!/usr/bin/env bash
# A Python for the kernel benchmark on a host without Debian's Jupyter packages.
#
# The benchmark harnesses (bench/kernel_bench.py, bench/typed_bench.py) run
# under Debian's /usr/bin/python3 with python3-jupyter-client, python3-zmq and
# python3-ipykernel, and the python3 peer is that ipykernel. This script packs
# this machine's Python interpreter, its standard library and exactly the
# Debian modules the harness and ipykernel import (found by running them, see
# step 2) with the shared libraries they need, into one relocatable archive
# for another x86_64 Linux host with the same or a newer glibc:
#
#   bench/portable_python.sh OUT.tar.xz            (here, on Debian)
#
#   mkdir -p /tmp/py && tar -xJf OUT.tar.xz -C /tmp/py     (there)
#   /tmp/py/bin/python3 bench/kernel_bench.py ...
#   TSGPU_BENCH_PYTHON=/tmp/py/bin/python3 npm run bench:kernel
#
# The archive is a prefix:
#   bin/python3          sh wrapper: PYTHONHOME = the bundle, the bundle's lib/
#                        first on LD_LIBRARY_PATH, then bin/python3.11 -s "$@"
#                        (-s: no ~/.local site-packages)
#   bin/python3.11       the interpreter
#   lib/python3.X/       standard library (without tests, idlelib, tkinter,
#                        ensurepip, lib2to3, turtledemo, config-*, caches)
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
#   share/jupyter/kernels/python3/  ipykernel's kernelspec, argv "python3",
#                        which jupyter_client runs as sys.executable
# Byte code is included for the modules the run in step 2 imported, so a first
# kernel start there is not slower than the next ones; the unpacked folder may
# stay read-only.
#
# Before packing, the bundle is checked here: every library any of its ELF
# files loads is in lib/ (or is glibc's, libstdc++ or libgcc_s), and, in an
# empty environment, its Python sees only its own folders, finds the
# provisioner and the kernelspec, and runs cells in an ipykernel.
set -euo pipefail

usage="usage: $0 OUT.tar.xz"
[ $# -eq 1 ] || { echo "$usage" >&2; exit 2; }
case "$1" in -h|--help) echo "$usage"; exit 0 ;; esac

PY=/usr/bin/python3
BENCH=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
OUT=$(realpath -m "$1")

die() { echo "portable_python: $*" >&2; exit 1; }
say() { echo "portable_python: $*" >&2; }

for tool in ldd tar xz readlink realpath; do
  command -v "$tool" >/dev/null || die "$tool is needed"
done
[ -x "$PY" ] || die "$PY not found"
for mod in zmq:python3-zmq jupyter_client:python3-jupyter-client ipykernel:python3-ipykernel; do
  "$PY" -c "import ${mod%%:*}" 2>/dev/null \
    || die "$PY cannot import ${mod%%:*}; install Debian's ${mod#*:} (apt-get install python3-jupyter-client python3-ipykernel)"
done

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

# ipykernel's kernelspec (its logos and kernel.json), run as sys.executable.
clean_env PYDEVD_DISABLE_FILE_VALIDATION=1 "$PY" -c '
import sys
from ipykernel.kernelspec import write_kernel_spec
write_kernel_spec(sys.argv[1], overrides={"argv": ["python3", "-m", "ipykernel_launcher", "-f", "{connection_file}"]})
' "$stage/share/jupyter/kernels/python3"

# ---- 2. Which Debian modules: run the harness's calls against ipykernel ------
# sitecustomize.py (imported after site and the .pth files) writes, at exit,
# the file of every module loaded; PYTHONPATH passes it on to the kernel,
# which is shut down by request so that it exits by itself and writes too.
cat > "$work/trace/sitecustomize.py" <<'EOF'
import atexit, os, sys
_log = os.environ["PORTABLE_PYTHON_TRACE"]
_at_start = set(sys.modules) - {"__main__"}  # loaded by site and .pth files, before any program


def _main_module():
    """The module of `python -m NAME` (by exit, ipykernel has replaced sys.modules["__main__"])."""
    argv = sys.orig_argv
    for i, arg in enumerate(argv[1:-1], 1):
        if arg == "-m":
            import importlib.util
            spec = importlib.util.find_spec(argv[i + 1])
            return spec.origin if spec else None
        if not arg.startswith("-"):
            return None


def _write():
    with open(_log, "a") as f:
        main = _main_module()
        if main:
            f.write(f"{os.getpid()}\trun\t{main}\n")
        for name, module in list(sys.modules.items()):
            file = getattr(module, "__file__", None)
            for path in [file] if file else list(getattr(module, "__path__", None) or []):
                f.write(f"{os.getpid()}\t{'site' if name in _at_start else 'run'}\t{path}\n")


atexit.register(_write)
EOF
cat > "$work/drive.py" <<'EOF'
"""What the harnesses do with a python3 kernel: import, start, wait, run cells (one prints, one fails), describe."""
import sys
sys.path.insert(0, sys.argv[1])
import bench_common, kernel_bench, typed_bench  # noqa: F401  (the harnesses' own imports)

seconds, km, kc = kernel_bench.first_reply("python3")
try:
    kc.wait_for_ready(timeout=60)
    bench_common.run_cells(kc, "1+1", 3)
    out = []
    kc.execute_interactive("print('hello')", timeout=30, output_hook=out.append)
    assert any(m["msg_type"] == "stream" and m["content"]["text"] == "hello\n" for m in out), out
    reply = kc.execute_interactive("1/0", timeout=30, output_hook=lambda m: None)
    assert reply["content"]["status"] == "error", reply["content"]
finally:
    kc.stop_channels()
    km.shutdown_kernel()  # not now=True: the kernel exits by itself and writes its list
bench_common.machine()
kernel_bench.describe_spec("python3")
del kc, km
EOF
say "running ipykernel under $PY to see what it and the harness import"
clean_env PYTHONPATH="$work/trace" PORTABLE_PYTHON_TRACE="$work/trace.log" PYTHONDONTWRITEBYTECODE=1 \
  JUPYTER_PATH="$stage/share/jupyter" PYDEVD_DISABLE_FILE_VALIDATION=1 \
  "$PY" "$work/drive.py" "$BENCH" || die "the traced run of ipykernel failed"
[ "$(cut -f1 "$work/trace.log" | sort -u | wc -l)" -ge 2 ] || die "the kernel did not write its module list"
grep -q "/ipykernel/ipkernel.py\$" "$work/trace.log" || die "the module list lacks ipykernel.ipkernel"

# From the list: the top-level entries of the site folders to copy, with the
# metadata of their distributions and the .pth files of the Debian packages
# that installed them; and the .py files to compile. Modules only .pth files
# loaded (before any program ran: 'site') are not taken.
clean_env "$PY" - "$work" "$STDLIB" "$DIST" "$VER" "$BENCH" <<'EOF'
import importlib.metadata, os, re, subprocess, sys
work, stdlib, dist, ver, bench = sys.argv[1:]
roots = [dist, os.path.join(stdlib, "dist-packages")]  # both are Debian's site folders
tops, compile_, elsewhere = set(), set(), set()
with open(os.path.join(work, "trace.log")) as f:
    for line in f:
        _, when, path = line.rstrip("\n").split("\t")
        root = next((r for r in roots if path.startswith(r + "/")), None)
        if root:
            rel = os.path.relpath(path, root)
            if when == "run":
                tops.add((root, rel.split("/")[0]))
                if path.endswith(".py"):
                    compile_.add(f"lib/python3/dist-packages/{rel}")
        elif path.startswith(stdlib + "/"):
            if path.endswith(".py") and os.path.isfile(path):
                compile_.add(f"lib/python{ver}/{os.path.relpath(path, stdlib)}")
        elif when == "run" and not path.startswith((bench + "/", work + "/")):
            elsewhere.add(path)
if elsewhere:
    print("portable_python: not bundled (outside Debian's folders): " + ", ".join(sorted(elsewhere)), file=sys.stderr)

def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()

def module_name(entry):  # six.py -> six, _brotli.cpython-311-x86_64-linux-gnu.so -> _brotli
    return entry.split(".")[0]

names = {norm(module_name(e)) for _, e in tops}
meta = set()
for root in roots:
    if not os.path.isdir(root):
        continue
    for entry in os.listdir(root):
        if not entry.endswith((".dist-info", ".egg-info")):
            continue
        provides = {norm(entry.split("-")[0])}
        path = os.path.join(root, entry)
        if os.path.isdir(path):
            d = importlib.metadata.Distribution.at(path)
            top_level = d.read_text("top_level.txt")
            if top_level:
                provides |= {norm(t) for t in top_level.split()}
            else:
                provides |= {norm(module_name(str(p).split("/")[0])) for p in d.files or [] if not str(p).startswith("..")}
        if provides & names:
            meta.add((root, entry))

# .pth files: those installed by the Debian packages that installed a copied module.
def owners(paths):
    """path -> the Debian packages that installed it (dpkg-query -S)."""
    if not paths:
        return {}
    r = subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True)
    pairs = (line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    return {path: set(packages.split(", ")) for packages, path in pairs}

pth = set()
try:
    packages = set().union(*owners([os.path.join(r, e) for r, e in tops]).values())
    pth_files = [os.path.join(r, e) for r in roots if os.path.isdir(r) for e in os.listdir(r) if e.endswith(".pth")]
    pth = {(os.path.dirname(path), os.path.basename(path)) for path, by in owners(pth_files).items() if by & packages}
except FileNotFoundError:
    print("portable_python: no dpkg-query, so no .pth files are copied", file=sys.stderr)

with open(os.path.join(work, "copy.txt"), "w") as f:
    f.write("".join(os.path.join(root, entry) + "\n" for root, entry in sorted(tops | meta | pth)))
with open(os.path.join(work, "compile.txt"), "w") as f:
    f.write("".join(p + "\n" for p in sorted(compile_)))
print("portable_python: modules: " + " ".join(sorted(e for _, e in tops)), file=sys.stderr)
print("portable_python: metadata and .pth: " + " ".join(sorted(e for _, e in meta | pth)), file=sys.stderr)
EOF

# Copied with links followed (Debian's debugpy links to pydevd's files beside it).
while IFS= read -r src; do
  cp -RLp "$src" "$SITE/"
done < "$work/copy.txt"
find "$stage" -name __pycache__ -type d -prune -exec rm -rf {} +

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

# ---- 4. Byte code of the modules the run imported -----------------------------
echo "lib/python3/dist-packages/_portable_python.py" >> "$work/compile.txt"
clean_env PYTHONDONTWRITEBYTECODE=1 sh -c 'cd "$1" && "$1/bin/python3" -m compileall -q -i "$2" >/dev/null' _ "$stage" "$work/compile.txt" \
  || die "compiling the modules failed"

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
clean_env PYTHONDONTWRITEBYTECODE=1 PYDEVD_DISABLE_FILE_VALIDATION=1 "$stage/bin/python3" - <<'EOF' || die "the bundle's check failed"
import os, sys
root = sys.prefix + os.sep
outside = [p for p in sys.path if p and not p.startswith(root)]
assert not outside, f"sys.path has folders outside the bundle: {outside}"
import zmq, jupyter_client, ipykernel
from jupyter_client.kernelspec import KernelSpecManager
from jupyter_client.manager import start_new_kernel
from jupyter_client.provisioning import KernelProvisionerFactory
assert "local-provisioner" in KernelProvisionerFactory.instance().get_provisioner_entries(), "no local-provisioner entry point"
spec = KernelSpecManager().get_kernel_spec("python3")
assert spec.resource_dir.startswith(root) and spec.argv[0] == "python3", (spec.resource_dir, spec.argv)
assert sys.executable == root + "bin/python3", sys.executable
assert "PYTHONHOME" not in os.environ and "LD_LIBRARY_PATH" not in os.environ, "the caller's environment was not given back"
km, kc = start_new_kernel(kernel_name="python3", startup_timeout=60)
try:
    out = []
    # (a kernel puts its working folder on sys.path for the user's modules)
    code = "import os, sys; print(sys.prefix, [p for p in sys.path if p and p != os.getcwd() and not p.startswith(sys.prefix + '/')])"
    reply = kc.execute_interactive(code, timeout=30, output_hook=out.append)
    text = "".join(m["content"]["text"] for m in out if m["msg_type"] == "stream")
    assert reply["content"]["status"] == "ok" and text == f"{sys.prefix} []\n", f"the kernel's prefix and paths outside it: {text!r}"
    reply = kc.execute_interactive("1/0", timeout=30, output_hook=lambda m: None)
    assert reply["content"]["status"] == "error" and reply["content"]["ename"] == "ZeroDivisionError", reply["content"]
finally:
    kc.stop_channels()
    km.shutdown_kernel(now=True)
del kc, km
print(f"Python {sys.version.split()[0]}, zmq {zmq.__version__} (libzmq {zmq.zmq_version()}), "
      f"jupyter_client {jupyter_client.__version__}, ipykernel {ipykernel.__version__}; sys.path: {sys.path[1:]}")
EOF

# ---- 6. Pack -----------------------------------------------------------------
say "packing $OUT"
tar -C "$stage" --owner=0 --group=0 --numeric-owner -cf - bin lib share | xz -9 -T2 > "$OUT.partial"
mv "$OUT.partial" "$OUT"
say "$OUT: $(du -h "$OUT" | cut -f1) ($(du -sh "$stage" | cut -f1) unpacked); unpack with: mkdir -p DIR && tar -xJf $OUT -C DIR, then run DIR/bin/python3"
