# expect: 5:31: cuda_max_registers and launch_bounds cannot be specified together
import warp as wp


@wp.kernel(launch_bounds=128, cuda_max_registers=32)
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
