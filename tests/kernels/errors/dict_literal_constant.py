# expect: 4:9: dict literals are only supported as module options: @wp.kernel(module_options={...}) and wp.set_module_options({...})
import warp as wp

TABLE = {"a": 1}


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
