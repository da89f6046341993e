# expect: 3:18: wildcard imports (from ... import *) are not supported in kernels
import warp as wp
from warp import *


@wp.kernel
def k(a: wp.array(dtype=float)):
    i = wp.tid()
