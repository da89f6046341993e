# Gradient accumulation into a bfloat16 buffer with atomics.
import warp as wp


@wp.kernel
def accumulate(g: wp.array(dtype=float), acc: wp.array(dtype=wp.bfloat16), peak: wp.array(dtype=wp.bfloat16)):
    i = wp.tid()
    v = wp.bfloat16(g[i])
    wp.atomic_add(acc, i % 8, v)
    wp.atomic_max(peak, 0, v)
