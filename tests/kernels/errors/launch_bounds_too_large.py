# expect: 5:26: launch_bounds must be from 1 to 1024 threads per block
import warp as wp


@wp.kernel(launch_bounds=4096)
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
