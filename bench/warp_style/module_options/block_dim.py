# A module that fixes its CUDA block size; the kernels are plain reductions.
import warp as wp

wp.set_module_options({"block_dim": 64, "enable_backward": False})


@wp.kernel
def partial_sums(x: wp.array(dtype=float), sums: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(sums, i // 16, x[i])


@wp.kernel
def count_positive(x: wp.array(dtype=float), count: wp.array(dtype=int)):
    i = wp.tid()
    if x[i] > 1.0:
        wp.atomic_add(count, 0, 1)
