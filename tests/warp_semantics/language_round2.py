# Issue 43's smaller forms, run in both: tuple[...] return annotations,
# wp.vector / wp.matrix with the length, shape or dtype inferred from the
# values, and wp.static(f)(x) calls. tests/unit/test_warp_semantics.cpp holds
# warp-lang 1.19's values.
import typing

import warp as wp


@wp.func
def split(x: float) -> tuple[float, int]:
    return x * 0.5, 3


@wp.func
def pair(v: wp.vec3) -> typing.Tuple[wp.vec3, float]:
    return v * 2.0, wp.length(v)


@wp.func
def twice(x: float):
    return 2.0 * x


@wp.kernel
def round2(a: wp.array(dtype=float), out: wp.array(dtype=float), vo: wp.array(dtype=wp.vec3),
           mo: wp.array(dtype=wp.mat22), io: wp.array(dtype=wp.vec3i)):
    i = wp.tid()
    h, n = split(a[i])
    v, l = pair(wp.vector(a[i], 1.0, 2.0))
    out[i] = h + float(n) + l + wp.static(twice)(a[i]) + wp.static(wp.sin)(a[i])
    vo[i] = v + wp.vector(wp.vec3(1.0, 2.0, 3.0)) + wp.vector(a[i], length=3)
    mo[i] = wp.matrix(a[i], 1.0, 2.0, 3.0, shape=(2, 2)) + wp.matrix(mo[i]) + wp.matrix(shape=(2, 2))
    io[i] = wp.vector(i, 2, 3)
