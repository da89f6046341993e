# expect: 11:1: kernel factory 'no_return' must end with `return NAME`
# expect: 32:12: 'fil' is not a @wp.kernel or @wp.func defined in kernel factory
# expect: 41:5: code after the return of kernel factory 'after_return' never runs
# expect: 45:5: function inside kernel factory 'with_plain_def' needs @wp.func or @wp.kernel
# expect: 56:5: classes inside a kernel factory 'with_struct' are not supported
# expect: 72:12: must return one of its @wp.kernel or @wp.func definitions by name
# expect: 76:5: other statements are host code, which weft does not run
import warp as wp


def no_return(factor: float):
    @wp.kernel
    def scale(x: wp.array(dtype=float)):
        x[wp.tid()] = factor


def with_host_code(n: int):
    m = n * 2

    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fill


def returns_other(n: int):
    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fil


def after_return(n: int):
    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fill
    print(n)


def with_plain_def(n: int):
    def helper(x: int):
        return x + n

    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = helper(n)

    return fill


def with_struct(n: int):
    @wp.struct
    class S:
        a: int

    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fill


def with_tuple(n: int):
    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fill, fill


def with_loop(n: int):
    for k in range(n):
        pass

    @wp.kernel
    def fill(x: wp.array(dtype=int)):
        x[wp.tid()] = n

    return fill
