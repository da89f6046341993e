# plugins: hash_grid
# objects: grid=hash_grid(x,0.35)
# Warp's DEM example: spring-damper contact forces between particles found through a hash grid.
import warp as wp


@wp.func
def contact_force(n: wp.vec3, v: wp.vec3, c: float, k_n: float, k_d: float, k_f: float, k_mu: float):
    vn = wp.dot(n, v)
    jn = c * k_n
    jd = min(vn, 0.0) * k_d
    fn = jn + jd
    vt = v - n * vn
    vs = wp.length(vt)
    if vs > 0.0:
        vt = vt / vs
    ft = wp.min(vs * k_f, k_mu * wp.abs(fn))
    return -n * fn - vt * ft


@wp.kernel
def forces(grid: wp.uint64, x: wp.array(dtype=wp.vec3), v: wp.array(dtype=wp.vec3), f: wp.array(dtype=wp.vec3), radius: float):
    tid = wp.tid()
    i = wp.hash_grid_point_id(grid, tid)
    r = radius * 0.1
    xi = x[i]
    vi = v[i]
    acc = wp.vec3()
    for index in wp.hash_grid_query(grid, xi, r * 2.0):
        if index != i:
            n = xi - x[index]
            d = wp.length(n)
            err = d - r * 2.0
            if err <= 0.0 and d > 0.0:
                n = n / d
                vrel = vi - v[index]
                acc = acc + contact_force(n, vrel, err, 1.0e3, 10.0, 1.0e2, 0.5)
    f[i] = acc
