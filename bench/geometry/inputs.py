# The benchmark's inputs as numpy arrays (warp_side.py); geometry.cpp builds
# the same ones (a UV sphere, rays at it from a larger sphere, points in a box).
import math

import numpy as np


def sphere(n_lat, n_lon):
    theta = np.pi * np.arange(n_lat + 1) / n_lat
    phi = 2.0 * np.pi * np.arange(n_lon) / n_lon
    t, p = np.meshgrid(theta, phi, indexing="ij")
    points = np.stack([np.sin(t) * np.cos(p), np.cos(t), np.sin(t) * np.sin(p)], axis=-1).reshape(-1, 3)
    i, j = np.meshgrid(np.arange(n_lat), np.arange(n_lon), indexing="ij")
    a = i * n_lon + j
    b = i * n_lon + (j + 1) % n_lon
    c = (i + 1) * n_lon + j
    d = (i + 1) * n_lon + (j + 1) % n_lon
    indices = np.stack([a, c, b, b, c, d], axis=-1).reshape(-1)
    return points.astype(np.float32), indices.astype(np.int32)


def frac(i, a):
    return np.fmod(i * a, 1.0)


def rays(n):
    i = np.arange(n, dtype=np.float64)
    z = 1.0 - 2.0 * frac(i, 0.6180339887498949)
    phi = 2.0 * np.pi * frac(i, 0.7548776662466927)
    r = np.sqrt(np.maximum(0.0, 1.0 - z * z))
    s = np.stack([3.0 * r * np.cos(phi), 3.0 * z, 3.0 * r * np.sin(phi)], axis=-1)
    target = (np.stack([frac(i, 0.5698402909980532), frac(i, 0.3819660112501051), frac(i, 0.2451223337533073)], axis=-1) - 0.5) * 1.6
    d = target - s
    d /= np.linalg.norm(d, axis=-1, keepdims=True)
    return s.astype(np.float32), d.astype(np.float32)


def points(n, side):
    i = np.arange(n, dtype=np.float64)
    return (np.stack([frac(i, 0.6180339887498949), frac(i, 0.7548776662466927), frac(i, 0.5698402909980532)], axis=-1) * side).astype(np.float32)
