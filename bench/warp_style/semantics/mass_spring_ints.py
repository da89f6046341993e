# A 1-D chain of springs: neighbour indices from integer arithmetic, the
# middle spring found with floor division, forces mixed from int counts.
import warp as wp


@wp.kernel
def spring_forces(x: wp.array(dtype=float), k: float, f: wp.array(dtype=float)):
    i = wp.tid()
    left = (i + 63) % 64
    right = (i + 1) % 64
    mid = 64 // 2
    stretch = (x[right] - x[i]) - (x[i] - x[left])
    weight = 1.0
    if i == mid or i == -(-64 // 3):
        weight = 2.0
    f[i] = k * stretch * weight - float(i / 8) * 0.01


@wp.kernel
def block_sums(x: wp.array(dtype=float), sums: wp.array(dtype=float)):
    i = wp.tid()
    block = i // 8
    wp.atomic_add(sums, block, x[i])
    wp.atomic_add(sums, -1 - block % 4, x[i] * 0.5)
