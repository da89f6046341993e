# expect: 9:14: no overload of 'length' matches the argument types (int32); candidates:
# expect: 9:14: length(a: vec3) -> float32
import warp as wp


@wp.kernel
def lengths(n: wp.array(dtype=int), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(n[i])
