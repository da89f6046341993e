# expect: 5:5: #line is not allowed in a native snippet
import warp as wp

snippet = """
    # 1 "elsewhere.cpp"
    return x;
"""


@wp.func_native(snippet)
def f(x: int) -> int:
    ...
