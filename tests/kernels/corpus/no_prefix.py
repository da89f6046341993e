from warp import kernel, func, tid, array, vec3, length, normalize, dot, cross


@func
def reflect(d: vec3, n: vec3) -> vec3:
    return d - n * (2.0 * dot(d, n))


@kernel
def reflect_rays(dirs: array(dtype=vec3), normals: array(dtype=vec3), out: array(dtype=vec3)):
    i = tid()
    n = normalize(normals[i])
    out[i] = reflect(dirs[i], n)


@kernel
def triangle_areas(a: array(dtype=vec3), b: array(dtype=vec3), c: array(dtype=vec3), areas: array(dtype=float)):
    i = tid()
    areas[i] = 0.5 * length(cross(b[i] - a[i], c[i] - a[i]))
