# Hash-slot claiming with atomic_cas: each empty slot is taken by one thread,
# whichever comes first; the number of claims does not depend on the order.
import warp as wp


@wp.func
def slot_of(key: int, n: int):
    return wp.abs(key * 7919 + 13) % n


@wp.kernel
def claim(keys: wp.array(dtype=int), slots: wp.array(dtype=int), claimed: wp.array(dtype=int)):
    i = wp.tid()
    s = slot_of(keys[i], slots.shape[0])
    if wp.atomic_cas(slots, s, 0, -1) == 0:
        wp.atomic_add(claimed, 0, 1)


@wp.kernel
def settle(weights: wp.array(dtype=float), best: wp.array(dtype=float)):
    i = wp.tid()
    # Replace a zero only: every later compare sees the first writer's value.
    wp.atomic_cas(best, i % best.shape[0], 0.0, 1.0)
    weights[i] = weights[i] * 0.5
