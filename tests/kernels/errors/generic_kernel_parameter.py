# expect: 8:8: 'typing.Any' is not a concrete type: only @wp.func and @wp.kernel parameters can be generic
import warp as wp
import typing


@wp.struct
class Holder:
    a: typing.Any
