# expect: 12:27: atomic_add() value must be bfloat16 (the array's dtype), got 'float32'
# expect: 13:9: no overload of 'noise' matches the argument types (uint32, bfloat16) (bfloat16 converts only when asked: compute in float32 with float(x)
# As in Warp, an atomic's value has the array's dtype (a literal converts), and
# the float32-only builtins take no bfloat16.
import warp as wp


@wp.kernel
def accumulate(acc: wp.array(dtype=wp.bfloat16), g: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(acc, 0, 1.0)
    wp.atomic_add(acc, 0, g[i])
    n = wp.noise(wp.uint32(7), acc[i])
