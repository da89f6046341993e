# A struct shared by a unique-module kernel and a kernel of the main module.
import warp as wp


@wp.struct
class Camera:
    origin: wp.vec3
    focal: float


@wp.kernel(module="unique")
def rays(cam: Camera, px: wp.array(dtype=wp.vec2), dirs: wp.array(dtype=wp.vec3)):
    i = wp.tid()
    d = wp.vec3(px[i][0] - 1.0, px[i][1] - 1.0, cam.focal)
    dirs[i] = wp.normalize(d - cam.origin * 0.0)


@wp.kernel
def depths(cam: Camera, p: wp.array(dtype=wp.vec3), z: wp.array(dtype=float)):
    i = wp.tid()
    z[i] = wp.dot(p[i] - cam.origin, wp.vec3(0.0, 0.0, 1.0)) * cam.focal
