"""Step 2 of bench/portable_python.sh: from the traced runs' module list, what to put in the bundle.

usage: select_modules.py WORK STDLIB DIST VER BENCH MODE   (MODE: kernel or server)

Reads WORK/trace.log (lines "PID<TAB>WHEN<TAB>PATH", see trace_imports.py) and writes:
  WORK/copy.txt     the top-level entries of Debian's site folders to copy (packages
                    and modules the programs imported, the metadata of their
                    distributions, the .pth files of the Debian packages that
                    installed them); modules that only .pth files loaded before any
                    program ran ('site') are not taken
  WORK/compile.txt  the .py files to byte-compile, relative to the bundle (kernel mode)
  WORK/stdlib.txt   the standard library files to copy, relative to STDLIB (server
                    mode: only what the run imported, and a few codecs, see EXTRA_STDLIB)
"""
import importlib.metadata
import os
import re
import subprocess
import sys

# Codecs the server looks up only for some input (jinja2 compiling the HTML error
# pages' templates: unicode_escape; JSON in UTF-16/32; non-UTF-8 locales; zip
# member names), which the traced run did not send; a few kilobytes each.
EXTRA_STDLIB = [f"encodings/{name}.py" for name in (
    "ascii", "latin_1", "utf_8_sig", "utf_16", "utf_32", "unicode_escape", "raw_unicode_escape", "cp437")]


def norm(name):
    return re.sub(r"[-_.]+", "_", name).lower()


def module_name(entry):  # six.py -> six, _brotli.cpython-311-x86_64-linux-gnu.so -> _brotli
    return entry.split(".")[0]


def read_trace(work, stdlib, roots, bench):
    """(top-level entries of the site folders, stdlib files, .py files to compile, files found elsewhere)."""
    tops, std, compile_, elsewhere = set(), set(), set(), set()
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
                rel = os.path.relpath(path, stdlib)
                if os.path.isfile(path) and rel != "sitecustomize.py":
                    std.add(rel)
            elif when == "run" and not path.startswith((bench + "/", work + "/")):
                elsewhere.add(path)
    return tops, std, compile_, elsewhere


def distributions_of(tops, roots):
    """The .dist-info/.egg-info entries of the distributions that provide the copied modules."""
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
    return meta


def owners(paths):
    """path -> the Debian packages that installed it (dpkg-query -S)."""
    if not paths:
        return {}
    r = subprocess.run(["dpkg-query", "-S", *paths], capture_output=True, text=True)
    pairs = (line.split(": ", 1) for line in r.stdout.splitlines() if ": " in line)
    return {path: set(packages.split(", ")) for packages, path in pairs}


def pth_files_of(tops, roots):
    """The .pth files installed by the Debian packages that installed a copied module."""
    try:
        packages = set().union(*owners([os.path.join(r, e) for r, e in tops]).values())
        pth_files = [os.path.join(r, e) for r in roots if os.path.isdir(r) for e in os.listdir(r) if e.endswith(".pth")]
        return {(os.path.dirname(path), os.path.basename(path)) for path, by in owners(pth_files).items() if by & packages}
    except FileNotFoundError:
        print("portable_python: no dpkg-query, so no .pth files are copied", file=sys.stderr)
        return set()


def main():
    work, stdlib, dist, ver, bench, mode = sys.argv[1:]
    if mode not in ("kernel", "server"):
        sys.exit(f"expected kernel or server for MODE, got {mode!r}")
    roots = [dist, os.path.join(stdlib, "dist-packages")]  # both are Debian's site folders
    tops, std, compile_, elsewhere = read_trace(work, stdlib, roots, bench)
    if elsewhere:
        print("portable_python: not bundled (outside Debian's folders): " + ", ".join(sorted(elsewhere)), file=sys.stderr)
    meta, pth = distributions_of(tops, roots), pth_files_of(tops, roots)

    with open(os.path.join(work, "copy.txt"), "w") as f:
        f.write("".join(os.path.join(root, entry) + "\n" for root, entry in sorted(tops | meta | pth)))
    with open(os.path.join(work, "compile.txt"), "w") as f:
        stdlib_py = {f"lib/python{ver}/{rel}" for rel in std if rel.endswith(".py")}
        f.write("".join(p + "\n" for p in sorted(compile_ | stdlib_py)))
    with open(os.path.join(work, "stdlib.txt"), "w") as f:
        extra = {rel for rel in EXTRA_STDLIB if os.path.isfile(os.path.join(stdlib, rel))}
        f.write("".join(rel + "\n" for rel in sorted(std | extra)))
    print("portable_python: modules: " + " ".join(sorted(e for _, e in tops)), file=sys.stderr)
    print("portable_python: metadata and .pth: " + " ".join(sorted(e for _, e in meta | pth)), file=sys.stderr)
    if mode == "server":
        print(f"portable_python: {len(std)} standard library files", file=sys.stderr)


main()
