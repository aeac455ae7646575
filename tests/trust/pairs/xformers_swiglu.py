"""xformers' decomposed SwiGLU train step against plain autograd.

Follows facebookresearch/xformers xformers/ops/swiglu_op.py, _SwiGLUDecomposedFunc: forward
x1 = x w1^T + b1, x2 = x w2^T + b2, x4 = silu(x1) * x2, x5 = x4 w3^T + b3; backward written out,
with _silu_backward computing in float32 on purpose (x.float(), then .to(x.dtype)). The loss is
sum(x5 * c), so dx5 = c. Gradients in input order: x, w1, b1, w2, b2, w3, b3."""
import torch
import torch.nn.functional as F

MODE = "train_step"


def example_inputs():
    torch.manual_seed(0)

    def param(*shape):
        return (torch.randn(*shape) / 3).requires_grad_()

    return (torch.randn(4, 6, requires_grad=True), param(8, 6), param(8), param(8, 6), param(8),
            param(6, 8), param(6), torch.randn(4, 6))


def reference(x, w1, b1, w2, b2, w3, b3, c):
    hidden = F.silu(F.linear(x, w1, b1)) * F.linear(x, w2, b2)
    return (F.linear(hidden, w3, b3) * c).sum()


def silu_backward(dy, x):
    sigm = 1 / (1 + torch.exp(-x.float()))
    return (dy.float() * sigm * (1 + x.float() * (1 - sigm))).to(x.dtype)


def production(x, w1, b1, w2, b2, w3, b3, c, bug="none"):
    # bug: "none", or a twin's: "swapped_gates" multiplies each gate's gradient by the other's
    # activation (dx3 = dx4 * x3, dx2 = dx4 * x2).
    x1 = x @ w1.transpose(-2, -1) + b1
    x2 = x @ w2.transpose(-2, -1) + b2
    x3 = F.silu(x1)
    x4 = x3 * x2
    x5 = x4 @ w3.transpose(-2, -1) + b3
    loss = (x5 * c).sum()
    dx5 = c
    dx4 = dx5 @ w3
    dw3 = dx5.transpose(-2, -1) @ x4
    db3 = dx5.sum(0)
    dx3, dx2 = (dx4 * x3, dx4 * x2) if bug == "swapped_gates" else (dx4 * x2, dx4 * x3)
    dx1 = silu_backward(dx3, x1)
    dx = dx2 @ w2
    dw2 = dx2.transpose(-2, -1) @ x
    db2 = dx2.sum(0)
    dx = dx + dx1 @ w1
    dw1 = dx1.transpose(-2, -1) @ x
    db1 = dx1.sum(0)
    return loss, dx, dw1, db1, dw2, db2, dw3, db3
