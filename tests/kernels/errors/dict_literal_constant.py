# expect: 10:12: 'TABLE' is a dict: kernels read it only as module options (wp.set_module_options(TABLE))
import warp as wp

TABLE = {"a": 1}


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = TABLE["a"]
