"""The Jupyter project's kernel conformance suite (jupyter_kernel_test), run
against the tsgpu kernel with a sample for every test the suite has, so that
none of its tests is skipped.

Run it with the system Python, which has jupyter_client and
jupyter_kernel_test:

    /usr/bin/python3 -m unittest discover -s test/kernel -p "test_*.py" -v
    /usr/bin/python3 test/kernel/test_conformance.py

(`-m unittest test/kernel/test_conformance.py` does not work: the module
name it derives, `test.kernel…`, collides with Python's own `test` package.)

It uses the "tsgpu" kernelspec found on JUPYTER_PATH; when there is none, it
installs one for this checkout (dist/kernel/cli.js must be built) into a
temporary folder and points JUPYTER_PATH there.

The kernels it starts keep their history and code cache in a temporary
folder of the suite's own, never in the user's (~/.local/share/tsgpu,
~/.cache/tsgpu): the history tests count the matches of a search, which
earlier sessions in the user's history would change.
"""

import os
import shutil
import subprocess
import tempfile
import unittest
from pathlib import Path

import jupyter_kernel_test

ROOT = Path(__file__).resolve().parents[2]
REPLY_TIMEOUT_S = 60
# The suite's few direct waits read its module's TIMEOUT when they run.
jupyter_kernel_test.TIMEOUT = REPLY_TIMEOUT_S
KERNEL_NAME = "tsgpu"


def _spec_on_jupyter_path():
    """The tsgpu kernel.json on JUPYTER_PATH, or None."""
    for folder in filter(None, os.environ.get("JUPYTER_PATH", "").split(os.pathsep)):
        spec = Path(folder) / "kernels" / KERNEL_NAME / "kernel.json"
        if spec.is_file():
            return spec
    return None


def _install_temporary_spec():
    """Installs a kernelspec for this checkout in a temporary prefix; returns the prefix."""
    cli = ROOT / "dist" / "kernel" / "cli.js"
    if not cli.is_file():
        raise RuntimeError(f"expected a built kernel at {cli}; run `npm run build` first")
    node = os.environ.get("NODE") or shutil.which("node")
    if not node:
        raise RuntimeError("expected `node` on PATH (or $NODE) to install the tsgpu kernelspec")
    prefix = tempfile.mkdtemp(prefix="tsgpu-kernelspec-")
    subprocess.run([node, str(cli), "install", "--prefix", prefix, "--name", KERNEL_NAME],
                   check=True, stdout=subprocess.DEVNULL)
    share = os.path.join(prefix, "share", "jupyter")
    os.environ["JUPYTER_PATH"] = os.pathsep.join(filter(None, [share, os.environ.get("JUPYTER_PATH")]))
    return prefix


class TsgpuKernelTests(jupyter_kernel_test.KernelTests):
    """Every sample jupyter_kernel_test supports, written in TypeScript."""

    kernel_name = KERNEL_NAME
    language_name = "typescript"
    file_extension = ".ts"

    code_hello_world = 'console.log("hello, world");'
    code_stderr = 'console.error("something went wrong");'

    completion_samples = [
        {"text": "conso", "matches": {"console"}},
        {"text": "Math.ab", "matches": {"abs"}},
        {"text": "display.mark", "matches": {"markdown"}},
    ]

    complete_code_samples = [
        "1",
        'console.log("hi");',
        "function f(a: number): number { return a + 1; }",
        "const xs = [1, 2, 3];\nfor (const x of xs) {\n  console.log(x);\n}",
        "",
        "%memory",
        "?Math.max",
    ]
    incomplete_code_samples = [
        "function f(a: number) {",
        "const xs = [1, 2,",
        "if (ready) {\n  go();",
        "const s = `unfinished",
        "interface Point {",
    ]
    invalid_code_samples = [
        "const = 5 5;",
        "1 +* 2",
        "let 5x = 1;",
        "a b c",
        "x = = 1;",
        "let z = ;",
        "let a = 1 +",
    ]

    code_page_something = "?Math.max"
    code_inspect_sample = "Math.max"

    code_generate_error = 'throw new Error("this cell fails on purpose");'

    code_execute_result = [
        {"code": "1 + 2", "result": "3"},
        {"code": '"ts" + "gpu"', "result": "'tsgpu'"},
        {"code": "[1, 2, 3].map((x: number) => x * 2)", "result": "[ 2, 4, 6 ]"},
        {"code": '({ [Symbol.for("Jupyter.mimebundle")]: () => ({ "text/html": "<b>rich</b>" }) })',
         "mime": "text/html", "result": "<b>rich</b>"},
    ]
    code_history_pattern = "1 + ?"
    supported_history_operations = ("tail", "range", "search")

    code_display_data = [
        {"code": 'display.html("<b>bold</b>");', "mime": "text/html"},
        {"code": 'display.markdown("*emphasis*");', "mime": "text/markdown"},
        {"code": 'display.svg("<svg xmlns=\'http://www.w3.org/2000/svg\'/>");', "mime": "image/svg+xml"},
        {"code": "display.json({ a: 1 });", "mime": "application/json"},
        {"code": 'display({ x: 1 });', "mime": "text/plain"},
    ]

    code_clear_output = 'console.log("going away");\nclearOutput();'

    # The suite waits 15 s for a reply, bound as a default argument when its module loads. A fresh kernel's
    # first cells on a loaded 2-core machine (its type checker starting beside it) have taken longer; a wait
    # here is for a hang, not a speed check, so the helpers that take a timeout wait a minute.
    def execute_helper(self, code, timeout=REPLY_TIMEOUT_S, **kwargs):
        return super().execute_helper(code, timeout=timeout, **kwargs)

    def history_helper(self, execute_first, timeout=REPLY_TIMEOUT_S, **histargs):
        return super().history_helper(execute_first, timeout=timeout, **histargs)

    @classmethod
    def setUpClass(cls):
        cls._own_files = tempfile.mkdtemp(prefix="tsgpu-conformance-")
        cls._saved_env = {k: os.environ.get(k) for k in ("TSGPU_HISTORY_FILE", "TSGPU_CACHE_DIR")}
        os.environ["TSGPU_HISTORY_FILE"] = os.path.join(cls._own_files, "history.jsonl")
        os.environ["TSGPU_CACHE_DIR"] = os.path.join(cls._own_files, "cache")
        # After the cache folder is set: `tsgpu install` builds the type checker's snapshot there.
        cls._temporary_prefix = None if _spec_on_jupyter_path() else _install_temporary_spec()
        super().setUpClass()

    @classmethod
    def tearDownClass(cls):
        super().tearDownClass()
        for key, value in cls._saved_env.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        shutil.rmtree(cls._own_files, ignore_errors=True)
        if cls._temporary_prefix:
            shutil.rmtree(cls._temporary_prefix, ignore_errors=True)


class NoTestIsSkipped(unittest.TestCase):
    """Every test of the suite has its sample here (a guard for new suite versions)."""

    def test_every_sample_attribute_is_set(self):
        base = jupyter_kernel_test.KernelTests
        samples = [name for name in vars(base)
                   if (name.startswith("code_") or name.endswith("_samples")
                       or name in ("supported_history_operations", "language_name", "file_extension"))
                   and not callable(getattr(base, name))]
        missing = [name for name in samples if not getattr(TsgpuKernelTests, name)]
        self.assertEqual(missing, [], f"samples without a value: {missing}")


if __name__ == "__main__":
    unittest.main(verbosity=2)
