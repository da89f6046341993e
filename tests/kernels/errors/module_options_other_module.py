# expect: 4:42: wp.set_module_options(): weft applies module options to the module of this file; leave out module= (or pass __name__)
import warp as wp

wp.set_module_options({"mode": "debug"}, "physics")


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
