# expect: 5:12: module_options requires module="unique" (as in Warp); use wp.set_module_options({...}) for the module of this file
import warp as wp


@wp.kernel(module_options={"mode": "debug"})
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
