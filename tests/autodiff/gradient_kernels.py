# Kernels whose gradients tests/autodiff/test_autodiff.cpp checks against
# central finite differences (float64 throughout, so the differences are exact
# to about 1e-9).
import warp as wp


@wp.func
def poly(x: wp.float64, n: int) -> wp.float64:
    # sum of x**k for k < n: a dynamic loop with loop-carried values
    acc = wp.float64(0.0)
    p = wp.float64(1.0)
    for k in range(n):
        acc = acc + p
        p = p * x
    return acc


@wp.kernel
def control_flow(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    v = x[i]
    y = wp.float64(0.0)
    if v > wp.float64(0.5):
        y = wp.sin(v) * v
    else:
        y = v * v * v
    for k in range(3):
        y = y * wp.float64(1.5) + v
    w = wp.float64(0.0)
    j = int(0)
    while j < n:
        w = w + v * wp.float64(j)
        if j == 2:
            break
        j = j + 1
    out[i] = y + poly(v, n) + w


@wp.kernel
def carried(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    # Warp replays dynamic loops and gets loop-carried values wrong; weft keeps them.
    i = wp.tid()
    v = x[i]
    for k in range(n):
        if k % 2 == 0:
            continue
        v = wp.sin(v) + v * wp.float64(0.5)
    out[i] = v


@wp.func
def clipped(x: wp.float64) -> wp.float64:
    if x > wp.float64(0.7):
        return wp.float64(2.0) * x
    return x * x


@wp.kernel
def early_return(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    if x[i] < wp.float64(0.3):
        return
    out[i] = clipped(x[i]) * wp.float64(3.0)


@wp.struct
class Body:
    pos: wp.vec3d
    mass: wp.float64


@wp.func
def energy(b: Body, g: wp.vec3d) -> wp.float64:
    return wp.float64(0.5) * b.mass * wp.dot(b.pos, b.pos) - b.mass * wp.dot(g, b.pos)


@wp.kernel
def struct_fields(bodies: wp.array(dtype=Body), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    b = bodies[i]
    b.pos = b.pos * wp.float64(2.0)
    out[i] = energy(b, wp.vec3d(0.0, -9.8, 0.0))


@wp.kernel
def atomics(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    wp.atomic_add(out, 0, x[i] * x[i])
    out[1] += wp.float64(3.0) * x[i]
    wp.atomic_sub(out, 2, wp.exp(x[i]))


@wp.kernel
def select_minmax(a: wp.array(dtype=wp.float64), b: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = wp.select(a[i] > b[i], a[i] * b[i], a[i] + b[i])
    t = wp.where(a[i] > b[i], wp.min(a[i], b[i]), wp.max(a[i], b[i]))
    c = wp.clamp(a[i], wp.float64(0.3), wp.float64(0.6))
    out[i] = s * t + c * wp.abs(a[i] - b[i])


@wp.kernel
def vectors(p: wp.array(dtype=wp.vec3d), q: wp.array(dtype=wp.quatd), out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    v = wp.quat_rotate(wp.normalize(q[i]), p[i])
    m = wp.outer(v, p[i])
    n = wp.normalize(wp.cross(v, p[i]))
    r = m * n + v * wp.length(p[i])
    r[1] = r[1] * wp.float64(2.0)
    out[i] = r + wp.vec3d(wp.determinant(m + wp.identity(n=3, dtype=wp.float64)), r[0], wp.float64(1.0))


# Ported in intent from Warp's gradient tests: a spring-mass step, a
# ray-sphere intersection and a small MLP layer.
@wp.kernel
def spring_step(x: wp.array(dtype=wp.vec3d), v: wp.array(dtype=wp.vec3d), rest: wp.float64, k: wp.float64,
                dt: wp.float64, x_out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    j = (i + 1) % 4
    d = x[j] - x[i]
    l = wp.length(d)
    f = d / l * (k * (l - rest))
    vn = v[i] + f * dt
    x_out[i] = x[i] + vn * dt


@wp.kernel
def ray_sphere(origins: wp.array(dtype=wp.vec3d), dirs: wp.array(dtype=wp.vec3d), center: wp.vec3d,
               radius: wp.float64, t_out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    o = origins[i] - center
    d = wp.normalize(dirs[i])
    b = wp.dot(o, d)
    c = wp.dot(o, o) - radius * radius
    disc = b * b - c
    t = wp.float64(0.0)
    if disc > wp.float64(0.0):
        t = -b - wp.sqrt(disc)
    t_out[i] = t


@wp.kernel
def mlp_layer(w: wp.array2d(dtype=wp.float64), bias: wp.array(dtype=wp.float64), x: wp.array(dtype=wp.float64),
              y: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = bias[i]
    for j in range(4):
        s = s + w[i, j] * x[j]
    y[i] = wp.tanh(s)


@wp.kernel(enable_backward=False)
def forward_only(x: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = x[i] * wp.float64(2.0)


# Warp's custom gradients: @wp.func_grad replaces a function's adjoint,
# @wp.func_replay what the backward pass replays instead of the function.
@wp.func
def safe_sqrt(x: wp.float64) -> wp.float64:
    return wp.sqrt(x)


@wp.func_grad(safe_sqrt)
def adj_safe_sqrt(x: wp.float64, adj_ret: wp.float64):
    if x > wp.float64(0.0):
        wp.adjoint[x] += adj_ret / (wp.float64(2.0) * wp.sqrt(x))


@wp.func
def counted(x: wp.float64, counter: wp.array(dtype=int)) -> wp.float64:
    wp.atomic_add(counter, 0, 1)
    return x * x


@wp.func_replay(counted)
def replay_counted(x: wp.float64, counter: wp.array(dtype=int)) -> wp.float64:
    # Deliberately not x * x: the test sees that backward passes replay this.
    return wp.float64(2.0) * x * x


@wp.kernel
def custom_gradients(x: wp.array(dtype=wp.float64), counter: wp.array(dtype=int), out: wp.array(dtype=wp.float64),
                     out2: wp.array(dtype=wp.float64)):
    i = wp.tid()
    out[i] = safe_sqrt(x[i])
    y = counted(x[i], counter)
    out2[i] = y * y


@wp.func
def polar(x: wp.float64, y: wp.float64):
    if x < wp.float64(0.0):
        return wp.sqrt(x * x + y * y), wp.atan2(y, x) + wp.float64(0.1)
    return wp.sqrt(x * x + y * y), wp.atan2(y, x)


@wp.kernel
def tuples(x: wp.array(dtype=wp.float64), y: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    r, a = polar(x[i], y[i])
    out[i] = r * wp.cos(a) + r * r * a


# Shared gradients: every thread reads every pos[j] (an n-body), so on the CPU
# the backward pass adds into private copies of pos.grad, one per range of
# threads, reduced in range order (CpuLaunchPlan::private_gradients).
@wp.kernel
def pairwise(pos: wp.array(dtype=wp.vec3d), n: int, out: wp.array(dtype=wp.vec3d)):
    i = wp.tid()
    p = pos[i]
    f = wp.vec3d(wp.float64(0.0), wp.float64(0.0), wp.float64(0.0))
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + wp.float64(0.01)
        f = f + d * (wp.float64(1.0) / (r2 * wp.sqrt(r2)))
    out[i] = f


@wp.kernel
def pairwise32(pos: wp.array(dtype=wp.vec3), n: int, out: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    p = pos[i]
    f = wp.vec3(0.0, 0.0, 0.0)
    for j in range(n):
        d = pos[j] - p
        r2 = wp.dot(d, d) + 0.01
        f = f + d * (1.0 / (r2 * wp.sqrt(r2)))
    out[i] = f


# A 2-D launch whose weights every row reads: w's gradient is shared, x's too.
@wp.kernel
def dense_layer32(w: wp.array2d(dtype=float), x: wp.array2d(dtype=float), y: wp.array2d(dtype=float)):
    s, o = wp.tid()
    acc = float(0.0)
    for k in range(16):
        acc = acc + w[o, k] * x[s, k]
    y[s, o] = wp.tanh(acc)


@wp.struct
class Particles:
    pos: wp.array(dtype=wp.float64)
    mass: wp.array(dtype=wp.float64)
    scale: wp.float64


@wp.struct
class World:
    particles: Particles
    offset: wp.array(dtype=wp.float64)


# Gradients into arrays that are fields of struct arguments, nested ones too.
@wp.kernel
def struct_arrays(world: World, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    p = world.particles
    j = (i + 1) % p.pos.shape[0]
    out[i] = p.pos[i] * p.mass[j] * p.scale + wp.sin(world.offset[i])


# Loops the backward pass replays per iteration (checkpointed), with every
# kind of carried value: sums (not restored), products and values used as
# indices, in conditions, before the loop and derived in it (restored).
@wp.kernel
def checkpoints(x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    acc = x[i]
    sq = acc * acc
    total = wp.float64(0.0)
    prod = wp.float64(1.0)
    idx = i
    for k in range(n):
        total = total + x[k]
        prod = prod * (x[k] + wp.float64(0.5))
        idx = idx + 1
        acc = acc + x[idx % n] * wp.float64(0.25)
        twice = acc * wp.float64(2.0)
        if total > wp.float64(1.0):
            prod = prod + twice * wp.float64(0.125)
    s = wp.float64(0.0)
    if i % 2 == 0:
        for k in range(n):
            s = s + wp.sin(x[k]) * x[i]
    out[i] = total * total + prod + sq * acc + s


# A loop that reuses the name of a value read before it (the variable holds
# the thread's index again for the adjoints that precede the loop).
@wp.kernel
def loop_reuse(x: wp.array(dtype=wp.float64), w: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    t = wp.tid()
    i = t
    v = x[i] * x[i]
    s = wp.float64(0.0)
    for i in range(4):
        s = s + w[i] * v
    out[t] = s


# A loop drawing random numbers: its state advances in place, so the loop is
# not replayed per iteration (it would draw other numbers).
@wp.kernel
def random_weights(w: wp.array(dtype=wp.float64), out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    state = wp.rand_init(7, i)
    acc = wp.float64(0.0)
    for k in range(8):
        r = wp.float64(wp.randf(state))
        acc = acc + r * w[k] * w[k]
    out[i] = acc


@wp.struct
class Holder:
    a: wp.array(dtype=wp.float64)
    scale: wp.float64


# Struct locals holding arrays: copied in a while loop, reassigned.
@wp.kernel
def struct_locals(p: Holder, p2: Holder, x: wp.array(dtype=wp.float64), n: int, out: wp.array(dtype=wp.float64)):
    i = wp.tid()
    s = wp.float64(0.0)
    j = int(0)
    while j < n:
        q = p
        s = s + q.a[j] * q.a[j]
        j = j + 1
    q = p2
    s = s + q.a[i] * wp.float64(3.0)
    s = s + x[i] * p.scale * wp.float64(2.0)
    out[i] = s
