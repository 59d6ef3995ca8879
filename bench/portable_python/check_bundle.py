"""Step 5 of bench/portable_python.sh, run by the bundle's bin/python3 in an empty environment.

usage: check_bundle.py kernel|server

Both modes: every folder on sys.path is inside the bundle, jupyter_client finds
its local-provisioner entry point, sys.executable is the bundle's bin/python3,
and the caller's (empty) environment was given back to the programs Python
starts. kernel: the python3 kernelspec is the bundle's and an ipykernel started
from it runs a cell in the bundle's Python and reports an error. server:
jupyter_server and what it serves kernels with (tornado, zmq, jupyter_client)
import from the bundle.
"""
import os
import sys

root = sys.prefix + os.sep
[mode] = sys.argv[1:]
if mode not in ("kernel", "server"):
    sys.exit(f"expected kernel or server, got {mode!r}")
outside = [p for p in sys.path if p and not p.startswith(root)]
assert not outside, f"sys.path has folders outside the bundle: {outside}"
import zmq, jupyter_client  # noqa: E401,E402
from jupyter_client.provisioning import KernelProvisionerFactory  # noqa: E402

assert "local-provisioner" in KernelProvisionerFactory.instance().get_provisioner_entries(), "no local-provisioner entry point"
assert sys.executable == root + "bin/python3", sys.executable
assert "PYTHONHOME" not in os.environ and "LD_LIBRARY_PATH" not in os.environ, "the caller's environment was not given back"


def check_kernel():
    import ipykernel
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import start_new_kernel
    spec = KernelSpecManager().get_kernel_spec("python3")
    assert spec.resource_dir.startswith(root) and spec.argv[0] == "python3", (spec.resource_dir, spec.argv)
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
    return f"ipykernel {ipykernel.__version__}"


def check_server():
    import jupyter_server, tornado  # noqa: E401
    from jupyter_server.serverapp import ServerApp  # noqa: F401  (what `python3 -m jupyter_server` loads)
    for module in (jupyter_server, tornado, zmq, jupyter_client):
        assert module.__file__.startswith(root), f"{module.__name__} from {module.__file__}"
    return f"jupyter_server {jupyter_server.__version__}, tornado {tornado.version}"


what = check_kernel() if mode == "kernel" else check_server()
print(f"Python {sys.version.split()[0]}, zmq {zmq.__version__} (libzmq {zmq.zmq_version()}), "
      f"jupyter_client {jupyter_client.__version__}, {what}; sys.path: {sys.path[1:]}")
