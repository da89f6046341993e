# Material kinds as an IntEnum, compared in a kernel.
import enum

import warp as wp


class Material(enum.IntEnum):
    FLUID = 0
    SOLID = 1
    GAS = 2


@wp.kernel
def densities(kind: wp.array(dtype=int), rho: wp.array(dtype=float)):
    i = wp.tid()
    k = kind[i] % 3
    if k == Material.FLUID:
        rho[i] = 1000.0
    elif k == Material.SOLID:
        rho[i] = 2500.0
    else:
        rho[i] = 1.2
    if k == int(Material.GAS):
        rho[i] = rho[i] * 2.0
