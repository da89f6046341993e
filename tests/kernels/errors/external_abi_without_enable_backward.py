# expect: 5:1: entry_point_abi='external_constant_params' requires an explicit enable_backward=False
import warp as wp


@wp.kernel(entry_point_abi="external_constant_params")
def raygen(a: wp.array(dtype=float)):
    i = wp.tid()
