# plugins: mesh
# objects: mesh=box
# Warp's raycast example, shading by the hit normal, over a small image.
import warp as wp


@wp.kernel
def draw(mesh: wp.uint64, cam_pos: wp.vec3, width: int, height: int, pixels: wp.array(dtype=wp.vec3)):
    tid = wp.tid()
    x = tid % 8
    y = tid // 8
    sx = 2.0 * float(x) / 8.0 - 1.0
    sy = 2.0 * float(y) / 8.0 - 1.0
    ro = cam_pos + wp.vec3(0.0, 0.0, 3.0)
    rd = wp.normalize(wp.vec3(sx, sy, -1.0))
    color = wp.vec3(0.0, 0.0, 0.0)
    query = wp.mesh_query_ray(mesh, ro, rd, 1.0e6)
    if query.result:
        color = query.normal * 0.5 + wp.vec3(0.5, 0.5, 0.5)
    pixels[tid] = color
