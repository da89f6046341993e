# A clamp written as a native C++ snippet, with a hand-written adjoint.
import warp as wp

snippet = """
    if (x < lo) return lo;
    if (x > hi) return hi;
    return x;
"""
adj_snippet = """
    if (x >= lo && x <= hi) adj_x += adj_ret;
"""


@wp.func_native(snippet, adj_snippet)
def native_clamp(x: float, lo: float, hi: float) -> float: ...


@wp.kernel
def clamp_all(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = native_clamp(x[i], 0.5, 1.25)
