# expect: 12:16: name 'velocity' is not defined
# expect: 18:9: no overload of operator + ('add') matches the argument types (vec3, float32)
# expect: 20:9: 'break' outside a loop
# expect: 21:9: unknown function 'magic'
# expect: 23:5: cannot assign 'vec3' to 'speed', which is float32
# expect: 29:12: kernels cannot return a value
import warp as wp


@wp.func
def drift(p: wp.vec3, dt: float) -> wp.vec3:
    return p + velocity * dt


@wp.kernel
def step(x: wp.array(dtype=wp.vec3), dt: float):
    i = wp.tid()
    y = x[i] + dt
    if dt > 1.0:
        break
    z = wp.magic(x[i])
    speed = wp.length(x[i])
    speed = x[i]
    x[i] = drift(x[i], dt)


@wp.kernel
def bad_return(a: wp.array(dtype=float)):
    return a[0]
