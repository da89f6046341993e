# One saxpy kernel for every float width, instantiated with wp.overload.
from typing import Any

import warp as wp


@wp.kernel
def saxpy(x: wp.array(dtype=Any), y: wp.array(dtype=Any), a: Any):
    i = wp.tid()
    y[i] = a * x[i] + y[i]


wp.overload(saxpy, [wp.array(dtype=wp.float32), wp.array(dtype=wp.float32), wp.float32])
wp.overload(saxpy, [wp.array(dtype=wp.float64), wp.array(dtype=wp.float64), wp.float64])
