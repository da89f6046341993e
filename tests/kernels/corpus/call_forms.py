# Calls as Python binds them: keywords, *v unpacking, negative component
# indices, sized constructors, lerp, math on constants, @wp.func options.
import math

import warp as wp
from warp.types import vector

OPTIONS = {"max_unroll": 8}
wp.set_module_options(OPTIONS)

vec5 = vector(length=5, dtype=float)
SQRT2 = math.sqrt(2.0)


@wp.func(name="spring_force", inline=True)
def spring(x: float, rest: float, stiffness: float):
    return -stiffness * (x - rest)


@wp.func(module="colors")
def luma(r: float, g: float, b: float):
    return 0.299 * r + 0.587 * g + 0.114 * b


@wp.kernel
def forces(x: wp.array(dtype=float), f: wp.array(dtype=float)):
    i = wp.tid()
    a = spring(x[i], rest=1.0, stiffness=20.0)
    b = spring(stiffness=5.0, x=x[i], rest=0.5)
    f[i] = a + b + wp.clamp(x[i], low=0.5, high=1.0) * wp.static(math.sqrt(2.0)) + SQRT2
    # Builtins bind keywords by Warp's parameter names.
    f[i] = f[i] + wp.sqrt(x=x[i] * x[i]) + wp.pow(y=2.0, x=x[i]) + wp.atan2(x=1.0, y=x[i]) + wp.abs(x=-x[i])


@wp.kernel
def colors(c: wp.array(dtype=wp.vec3), y: wp.array(dtype=float), c4: wp.array(dtype=wp.vec4),
           q: wp.array(dtype=wp.quat), last: wp.array(dtype=float)):
    i = wp.tid()
    col = c[i]
    y[i] = luma(*col)
    c4[i] = wp.vec4(*col, 1.0)
    r = q[i]
    turned = wp.quat_rotate(vec=col, quat=wp.normalize(r))
    y[i] = y[i] + wp.quat_to_matrix(quat=wp.quat_inverse(quat=wp.normalize(r)))[0, 1] + turned[2]
    q[i] = wp.quat(*r) * 0.5
    k = i % 3 - 3
    last[i] = col[-1] + col[k] + r[-2]
    col[-3] = 4.0
    c[i] = col


@wp.kernel
def blends(a: wp.array(dtype=float), v: wp.array(dtype=wp.vec3), m: wp.array(dtype=wp.mat22),
           out: wp.array(dtype=vec5)):
    i = wp.tid()
    t = float(i) / 64.0
    a[i] = wp.lerp(a[i], 2.0, t)
    v[i] = wp.lerp(v[i], wp.vec3(1.0, 2.0, 3.0), t)
    m[i] = wp.lerp(m[i], wp.matrix(1.0, 0.0, 0.0, 1.0, shape=(2, 2), dtype=float), t)
    out[i] = wp.vector(a[i], t, 1.0, 2.0, t * t, length=5, dtype=float)
