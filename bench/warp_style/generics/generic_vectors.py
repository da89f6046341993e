# Generic vector math over any vector length and scalar type.
from typing import Any

import warp as wp


@wp.func
def project(v: Any, n: Any):
    return v - n * (wp.dot(v, n) / wp.dot(n, n))


@wp.kernel
def project_all(v: wp.array(dtype=Any), n: wp.array(dtype=Any), out: wp.array(dtype=Any)):
    i = wp.tid()
    out[i] = project(v[i], n[i])


wp.overload(project_all, [wp.array(dtype=wp.vec3), wp.array(dtype=wp.vec3), wp.array(dtype=wp.vec3)])
wp.overload(project_all, [wp.array(dtype=wp.vec2d), wp.array(dtype=wp.vec2d), wp.array(dtype=wp.vec2d)])


@wp.kernel
def lengths(v: wp.array(dtype=wp.vec4), out: wp.array(dtype=float)):
    i = wp.tid()
    out[i] = wp.length(project(v[i], wp.vec4(1.0, 0.0, 0.0, 1.0)))
