# expect: 8:10: 'wp.indexedarray' needs a concrete dtype: generic (Any) dtypes are for wp.array; write wp.indexedarray(dtype=float)
from typing import Any

import warp as wp


@wp.kernel
def k(a: wp.indexedarray(dtype=Any)):
    i = wp.tid()
    a[i] = 1.0
