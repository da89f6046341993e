# Structs built empty and filled field by field, then passed to functions.
import warp as wp


@wp.struct
class Contact:
    normal: wp.vec3
    depth: float
    body: int


@wp.func
def make_contact(p: wp.vec3, i: int):
    c = Contact()
    c.normal = wp.normalize(p)
    c.depth = 1.0 - wp.length(p)
    c.body = i % 4
    return c


@wp.kernel
def contacts(p: wp.array(dtype=wp.vec3), depth: wp.array(dtype=float), body: wp.array(dtype=int),
             n: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    c = make_contact(p[i], i)
    depth[i] = c.depth
    body[i] = c.body
    n[i] = c.normal
