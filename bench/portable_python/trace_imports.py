"""sitecustomize.py of the traced runs of bench/portable_python.sh.

Imported after site and the .pth files; at exit it appends to the file named
by PORTABLE_PYTHON_TRACE one line "PID<TAB>WHEN<TAB>PATH" per file of every
loaded module (WHEN: "site" for what site and the .pth files loaded before any
program ran, "run" for the rest, and for the module of `python -m NAME`).
PORTABLE_PYTHON_BLOCK (top-level names, space-separated) makes importing those
modules fail as if they were not installed, so that the run shows what the
program imports without the optional modules the bundle leaves out.
"""
import atexit
import os
import sys

_log = os.environ["PORTABLE_PYTHON_TRACE"]
_at_start = set(sys.modules) - {"__main__"}
_blocked = frozenset(os.environ.get("PORTABLE_PYTHON_BLOCK", "").split())


class _Block:
    """A finder ahead of all others that refuses the blocked top-level modules."""

    @staticmethod
    def find_spec(name, path=None, target=None):
        if name.partition(".")[0] in _blocked:
            raise ModuleNotFoundError(f"No module named {name!r} (left out of the bundle)", name=name)
        return None


if _blocked:
    sys.meta_path.insert(0, _Block)


def _main_module():
    """The file of `python -m NAME`'s module (a program may have replaced sys.modules["__main__"] by exit)."""
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
