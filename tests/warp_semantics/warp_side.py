# The operators kernel of tests/unit/test_warp_semantics.cpp, run by
# warp-lang on the CPU: prints the values the weft test expects, so a new
# Warp release that changes them shows here. Exits 77 (skipped) without
# warp-lang; WEFT_WARP_PYTHON names an interpreter that has it
# (bench/vs_warp/setup_warp.sh makes one).
import sys

try:
    import warp as wp
except ImportError:
    print("skipped: warp-lang is not installed for " + sys.executable)
    sys.exit(77)

wp.config.quiet = True
wp.init()


@wp.kernel
def ops(a: wp.array(dtype=int), out: wp.array(dtype=int), f: wp.array(dtype=float)):
    out[0] = 7 / 2
    out[1] = -7 // 2
    out[2] = -7 % 3
    out[3] = 7 % -3
    out[4] = a[-1]
    out[5] = a[-4]
    a[-2] = 99
    wp.atomic_add(a, -3, 1000)
    out[6] = -7 / 2
    out[7] = 7 // -2
    f[0] = -7.5 % 2.0
    f[1] = 7.5 % -2.0
    f[2] = -7.5 // 2.0
    f[3] = float(-7) / float(2)


a = wp.array([1, 2, 3, 4], dtype=int, device="cpu")
out = wp.zeros(8, dtype=int, device="cpu")
f = wp.zeros(4, dtype=float, device="cpu")
wp.launch(ops, dim=1, inputs=[a, out, f], device="cpu")
print("warp", wp.__version__)
print("out", out.numpy().tolist())
print("a", a.numpy().tolist())
print("f", f.numpy().tolist())
