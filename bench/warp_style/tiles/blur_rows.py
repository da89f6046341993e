# A 3-tap blur along rows: three shifted tile loads (past the array's end they read zero),
# weighted and summed, stored one column to the right (the last column falls outside).
import warp as wp

W = wp.constant(16)


@wp.kernel
def blur(src: wp.array2d(dtype=float), dst: wp.array2d(dtype=float)):
    i = wp.tid()
    left = wp.tile_load(src, shape=(1, W), offset=(i, 0))
    mid = wp.tile_load(src, shape=(1, W), offset=(i, 1))
    right = wp.tile_load(src, shape=(1, W), offset=(i, 2))
    wp.tile_store(dst, left * 0.25 + mid * 0.5 + right * 0.25, offset=(i, 1))
