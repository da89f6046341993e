# Tuning options: no FP contraction (bitwise-reproducible sums), an explicit
# optimization level, and a kernel that opts out of the grid-stride loop.
import warp as wp

wp.set_module_options({"fuse_fp": False, "optimization_level": 3})


@wp.kernel
def kahan_like(a: wp.array(dtype=float), b: wp.array(dtype=float), c: wp.array(dtype=float)):
    i = wp.tid()
    s = a[i] * b[i] + c[i]
    c[i] = s - a[i] * b[i]


@wp.kernel(grid_stride=False)
def fill(a: wp.array(dtype=float), v: float):
    i = wp.tid()
    a[i] = v + float(i)
