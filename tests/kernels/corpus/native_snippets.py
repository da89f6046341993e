# @wp.func_native: C++ bodies as strings, with adjoints (adj_snippet), as Warp users write them.
import warp as wp

clamp_snippet = """
    if (x < lo) return lo;
    if (x > hi) return hi;
    return x;
"""
clamp_adj_snippet = """
    if (x >= lo && x <= hi) adj_x += adj_ret;
"""


@wp.func_native(clamp_snippet, clamp_adj_snippet)
def native_clamp(x: float, lo: float, hi: float) -> float:
    ...


@wp.func_native("return sqrt(x * x + eps);", adj_snippet="adj_x += adj_ret * x / sqrt(x * x + eps);")
def smooth_abs(x: float, eps: float) -> float:
    """|x|, smoothed at 0."""
    ...


@wp.func_native("out[tid] = x[tid] * 2.0f + 1.0f;")
def double_plus_one(x: wp.array(dtype=float), out: wp.array(dtype=float), tid: int):
    pass


@wp.func_native("""
    int n = 0;
    for (int j = 0; j < 16; ++j)
        if (wp::index(grid, row, j) > threshold) ++n;
    return n;
""")
def count_row(grid: wp.array2d(dtype=float), row: int, threshold: float) -> int:
    ...


@wp.func_native("return wp::vec3(v[1], v[2], v[0]);")
def rotate_components(v: wp.vec3) -> wp.vec3:
    ...


@wp.func_native("""
    unsigned int state = (unsigned int)x * 747796405u + 2891336453u;
    unsigned int word = ((state >> ((state >> 28u) + 4u)) ^ state) * 277803737u;
    return (word >> 22u) ^ word;
""")
def pcg_hash(x: int) -> wp.uint32:
    ...


@wp.kernel
def losses(pred: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    loss[i] = smooth_abs(native_clamp(pred[i], 0.5, 1.25) - target[i], 0.01)


@wp.kernel
def natives(x: wp.array(dtype=float), y: wp.array(dtype=float), grid: wp.array2d(dtype=float),
            counts: wp.array(dtype=int), v: wp.array(dtype=wp.vec3), hashes: wp.array(dtype=wp.uint32)):
    i = wp.tid()
    double_plus_one(x, y, i)
    if i < 16:
        counts[i] = count_row(grid, i, 1.0)
    v[i] = rotate_components(v[i])
    hashes[i] = pcg_hash(i)


# "#include" inside a string literal or a comment is text, not a directive (issue 39): it builds.
@wp.func_native("""
    const char *text = "#include <stdio.h>"; // #include "x.h" is a comment here
    return text[1] == 'i' ? x + 1 : 0;
""")
def literal_include(x: int) -> int:
    ...


@wp.kernel
def literal_text(a: wp.array(dtype=int)):
    i = wp.tid()
    a[i] = literal_include(a[i])
