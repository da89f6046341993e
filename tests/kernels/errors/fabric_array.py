# expect: 6:10: 'wp.fabricarray' is an Omniverse Fabric array (USD stage data through Fabric's runtime), which weft does not have
import warp as wp


@wp.kernel
def k(a: wp.fabricarray(dtype=float)):
    i = wp.tid()
    a[i] = 1.0
