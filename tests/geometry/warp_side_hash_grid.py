# What warp-lang computes for hash_grid_kernels.py on the inputs
# tests/unit/test_host_objects.cpp builds: the values that test expects.
import math
import os
import sys

try:
    import numpy as np
    import warp as wp
except ImportError:
    sys.exit(77)

sys.path.insert(0, os.path.dirname(__file__))
wp.config.quiet = True
wp.init()
import hash_grid_kernels as k  # noqa: E402


def points(n, side):
    out = np.zeros((n, 3), dtype=np.float32)
    for i in range(n):
        out[i] = [math.fmod(i * 0.6180339887498949, 1.0) * side, math.fmod(i * 0.7548776662466927, 1.0) * side,
                  math.fmod(i * 0.5698402909980532, 1.0) * side]
    return out


n, radius = 2000, 0.8
p = wp.array(points(n, 10.0), dtype=wp.vec3, device="cpu")
grid = wp.HashGrid(32, 32, 32, device="cpu")
grid.build(p, radius)
counts = wp.zeros(n, dtype=int, device="cpu")
sums = wp.zeros(n, dtype=float, device="cpu")
wp.launch(k.neighbor_sums, dim=n, inputs=[grid.id, p, radius, counts, sums], device="cpu")
c2 = wp.zeros(n, dtype=int, device="cpu")
wp.launch(k.neighbor_counts_while, dim=n, inputs=[grid.id, p, radius, c2], device="cpu")
first = wp.zeros(n, dtype=int, device="cpu")
total = wp.zeros(n, dtype=int, device="cpu")
wp.launch(k.candidates, dim=n, inputs=[grid.id, p, radius, first, total], device="cpu")
c, s, f, t = counts.numpy(), sums.numpy(), first.numpy(), total.numpy()
print("counts_sum", int(c.sum()), "counts_while_equal", bool((c2.numpy() == c).all()))
print("counts", [int(c[i]) for i in (0, 1, 17, 999, 1999)])
print("sums", [float(s[i]) for i in (0, 1, 17, 999, 1999)])
print("sums_total", float(np.sum(s.astype(np.float64))))
print("first", [int(f[i]) for i in (0, 1, 17, 999, 1999)], "total_sum", int(t.sum()))
