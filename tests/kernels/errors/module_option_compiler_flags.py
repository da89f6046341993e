# expect: 4:24: module option 'cpu_compiler_flags' is not supported: weft compiles with its own flags; use "optimization_level" and "fast_math"
import warp as wp

wp.set_module_options({"cpu_compiler_flags": "-O3"})


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
