# A smooth absolute value with its derivative given natively, used in a loss.
import warp as wp


@wp.func_native(
    "return sqrt(x * x + eps);",
    "adj_x += adj_ret * x / sqrt(x * x + eps);",
)
def smooth_abs(x: float, eps: float) -> float: ...


@wp.kernel
def l1_loss(pred: wp.array(dtype=float), target: wp.array(dtype=float), loss: wp.array(dtype=float)):
    i = wp.tid()
    wp.atomic_add(loss, 0, smooth_abs(pred[i] - target[i], 1.0e-4))
    loss[i % 63 + 1] = smooth_abs(pred[i], 0.01)
