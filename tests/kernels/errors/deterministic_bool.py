# expect: 4:41: module option 'deterministic' must be a wp.DeterministicMode value
import warp as wp

wp.set_module_options({"deterministic": True})


@wp.kernel
def k(a: wp.array(dtype=float)):
    a[0] = 1.0
