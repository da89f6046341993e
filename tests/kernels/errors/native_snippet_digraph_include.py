# expect: 6:5: #include is not allowed in a native snippet
import warp as wp

snippet = """
    int n = 0;
    %:include "secrets.h"
    return n;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
