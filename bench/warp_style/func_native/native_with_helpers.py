# A native fused multiply-add mixed with ordinary Warp helpers and loops.
import warp as wp


@wp.func_native("return a * b + c;", "adj_a += adj_ret * b; adj_b += adj_ret * a; adj_c += adj_ret;")
def fma3(a: float, b: float, c: float) -> float: ...


@wp.func
def horner(x: float):
    acc = float(0.0)
    for k in range(4):
        acc = fma3(acc, x, float(k + 1))
    return acc


@wp.kernel
def poly(x: wp.array(dtype=float), y: wp.array(dtype=float)):
    i = wp.tid()
    y[i] = horner(x[i])
