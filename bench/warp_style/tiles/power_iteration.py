# Power iteration: repeated tile_matmul of a 16 x 16 matrix with a vector, normalized each step.
import warp as wp

N = wp.constant(16)


@wp.kernel
def power_iteration(m: wp.array2d(dtype=float), v: wp.array2d(dtype=float), steps: int, out: wp.array2d(dtype=float)):
    i = wp.tid()
    a = wp.tile_load(m, shape=(N, N))
    x = wp.tile_load(v, shape=(N, 1))
    for s in range(steps % 5 + 3):
        y = wp.tile_matmul(a, x)
        norm = wp.sqrt(wp.tile_sum(y * y)[0])
        x = y / norm
    if i == 0:
        wp.tile_store(out, x)
