# expect: 7:10: 'typing.Any' is not a concrete type: only @wp.func parameters can be generic
import warp as wp
import typing


@wp.kernel
def k(a: typing.Any):
    i = wp.tid()
