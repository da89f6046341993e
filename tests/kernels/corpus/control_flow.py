import warp as wp


@wp.func
def collatz_steps(n: int, limit: int) -> int:
    steps = int(0)
    x = n
    while x != 1:
        if steps >= limit:
            break
        if x % 2 == 0:
            x = x // 2
        else:
            x = 3 * x + 1
        steps += 1
    return steps


@wp.kernel
def collatz(out: wp.array(dtype=int)):
    i = wp.tid()
    out[i] = collatz_steps(i + 1, 1000)


@wp.kernel
def classify(values: wp.array(dtype=float), labels: wp.array(dtype=int)):
    i = wp.tid()
    v = values[i]
    label: int = 0
    if v < -1.0:
        label = -2
    elif v < 0.0:
        label = -1
    elif v == 0.0:
        label = 0
    elif v < 1.0:
        label = 1
    else:
        label = 2
    labels[i] = label


@wp.kernel
def strided_sum(values: wp.array(dtype=float), out: wp.array(dtype=float), stride: int):
    i = wp.tid()
    n = len(values)
    acc: float = 0.0
    for j in range(i, n, stride):
        if values[j] < 0.0:
            continue
        acc += values[j]
    for j in range(3):
        acc = acc * 0.5
    for j in range(1, 4):
        acc = acc + float(j)
    out[i] = acc if acc > 0.0 else -acc


@wp.kernel
def first_match(values: wp.array(dtype=int), target: int, found: wp.array(dtype=int)):
    row = wp.tid()
    n = len(values)
    index = int(-1)
    k = int(0)
    while k < n:
        if values[k] == target:
            index = k
            break
        k += 1
    found[row] = index
    if index < 0 and not (n == 0):
        found[row] = n
    elif 0 <= index < n:
        pass


@wp.kernel
def nested_loops(grid: wp.array2d(dtype=float), limit: float, counts: wp.array(dtype=int)):
    i = wp.tid()
    count = int(0)
    for a in range(grid.shape[0]):
        for b in range(grid.shape[1]):
            if grid[a, b] > limit:
                break
            if grid[a, b] < 0.0:
                continue
            count += 1
        last_count = count
    counts[i] = count
