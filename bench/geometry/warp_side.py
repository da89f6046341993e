# warp-lang's side of bench/geometry (CPU): the same meshes, rays and points
# as geometry.cpp, timed the same way (best of --repeat after one warm-up).
import argparse
import os
import sys
import time

import numpy as np
import warp as wp

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import inputs  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--kernels", required=True)
ap.add_argument("--cache-dir", required=True)
ap.add_argument("--rays", type=int, default=1 << 20)
ap.add_argument("--lat", type=int, default=250)
ap.add_argument("--lon", type=int, default=400)
ap.add_argument("--points", type=int, default=1 << 20)
ap.add_argument("--repeat", type=int, default=3)
a = ap.parse_args()
wp.config.kernel_cache_dir = a.cache_dir
wp.config.quiet = True
wp.init()
import importlib.util  # noqa: E402

spec = importlib.util.spec_from_file_location("geometry_kernels", a.kernels)
k = importlib.util.module_from_spec(spec)
spec.loader.exec_module(k)


def best(f):
    f()
    times = []
    for _ in range(a.repeat):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return 1000 * min(times)


pts, idx = inputs.sphere(a.lat, a.lon)
points = wp.array(pts, dtype=wp.vec3, device="cpu")
indices = wp.array(idx, dtype=wp.int32, device="cpu")
holder = {}


def build():
    holder["mesh"] = wp.Mesh(points=points, indices=indices)


print("warp mesh_build_ms %.3f" % best(build))
mesh = holder["mesh"]
s, d = inputs.rays(a.rays)
starts = wp.array(s, dtype=wp.vec3, device="cpu")
dirs = wp.array(d, dtype=wp.vec3, device="cpu")
ts = wp.zeros(a.rays, dtype=float, device="cpu")
print("warp rays_ms %.3f" % best(lambda: wp.launch(k.cast, dim=a.rays, inputs=[mesh.id, starts, dirs, ts], device="cpu")))
print("warp rays_hit %d" % int((ts.numpy() >= 0).sum()))

side = 100.0
p = wp.array(inputs.points(a.points, side), dtype=wp.vec3, device="cpu")
radius = side / (a.points ** (1.0 / 3.0)) * 1.5
grid = wp.HashGrid(128, 128, 128, device="cpu")
counts = wp.zeros(a.points, dtype=int, device="cpu")


def grid_step():
    grid.build(p, radius)
    wp.launch(k.neighbors, dim=a.points, inputs=[grid.id, p, radius, counts], device="cpu")


print("warp hash_grid_build_ms %.3f" % best(lambda: grid.build(p, radius)))
print("warp hash_grid_ms %.3f" % best(grid_step))
print("warp hash_grid_neighbors %d" % int(counts.numpy().sum()))
