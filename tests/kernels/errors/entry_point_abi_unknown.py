# expect: 5:51: entry_point_abi must be 'warp' or 'external_constant_params', got 'optix'
import warp as wp


@wp.kernel(enable_backward=False, entry_point_abi="optix")
def raygen(a: wp.array(dtype=float)):
    i = wp.tid()
