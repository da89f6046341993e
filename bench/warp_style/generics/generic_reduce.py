# A generic atomic reduction, instantiated for float and int data.
from typing import Any

import warp as wp


@wp.kernel
def reduce_sum(values: wp.array(dtype=Any), total: wp.array(dtype=Any)):
    i = wp.tid()
    wp.atomic_add(total, 0, values[i])


@wp.kernel
def reduce_max(values: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    wp.atomic_max(out, i % 4, values[i])


wp.overload(reduce_sum, [wp.array(dtype=float), wp.array(dtype=float)])
wp.overload(reduce_sum, [wp.array(dtype=int), wp.array(dtype=int)])
wp.overload(reduce_max, {"values": wp.array(dtype=wp.int32), "out": wp.array(dtype=wp.int32)})
