# expect: 5:84: name= must be a valid C++ identifier, got '3d-raygen'
import warp as wp


@wp.kernel(enable_backward=False, entry_point_abi="external_constant_params", name="3d-raygen")
def raygen(a: wp.array(dtype=float)):
    i = wp.tid()
