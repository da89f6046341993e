import warp as wp


@wp.struct
class LaunchParams:
    width: int
    height: int
    exposure: float


@wp.kernel(enable_backward=False, entry_point_abi="external_constant_params", name="raygen_entry")
def raygen(params: LaunchParams, image: wp.array2d(dtype=wp.vec3)):
    x, y = wp.tid()
    if x >= params.width or y >= params.height:
        return
    u = float(x) / float(params.width)
    v = float(y) / float(params.height)
    image[y, x] = wp.vec3(u, v, 0.5) * params.exposure


@wp.kernel(enable_backward=False)
def no_grad_fill(a: wp.array(dtype=float), value: float):
    i = wp.tid()
    a[i] = value


@wp.kernel(entry_point_abi="warp")
def default_abi(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0


@wp.kernel(name="scale_by_two")
def renamed(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = a[i] * 2.0
