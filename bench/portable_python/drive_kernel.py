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
