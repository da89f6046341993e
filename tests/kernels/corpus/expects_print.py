import warp as wp


@wp.kernel
def check_identity(values: wp.array(dtype=float)):
    i = wp.tid()
    v = values[i]
    wp.expect_eq(v + 0.0, v)
    wp.expect_near(wp.sqrt(v * v), wp.abs(v), tolerance=1.0e-5)
    wp.expect_neq(i, -1)
    if i == 0:
        print("first value", v)
    print(i)


@wp.kernel
def check_vectors(vs: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    v = vs[i]
    wp.expect_eq(v, v)
    wp.expect_near(wp.length(wp.normalize(v)), 1.0, 0.001)
    print("vector", v, "norm", wp.length(v))


@wp.kernel
def check_matrix(m: wp.mat33):
    wp.expect_eq(m * wp.identity(n=3, dtype=float), m)
    wp.print(m)
