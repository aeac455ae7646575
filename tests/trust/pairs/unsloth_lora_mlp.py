"""Unsloth's LoRA SwiGLU MLP train step against plain autograd.

Follows unslothai/unsloth unsloth/kernels/fast_lora.py, LoRA_MLP.forward/backward (the PyTorch
math around its Triton kernels): matmul_lora(X, W, A, B, s) = X W^T + s (X A^T) B^T for the gate,
up and down projections with frozen base weights; the SwiGLU kernels of unsloth/kernels/swiglu.py
(swiglu_fg_kernel, swiglu_DWf_DW_dfg_kernel) compute the gate in float32 on purpose, written here
as .float() and back. The backward gives dX and the six LoRA gradients, through the chain rule in
LoRA_MLP's docstring. The loss is sum(out * c), so dY = c."""
import torch

MODE = "train_step"
RANK, GATE_S, UP_S, DOWN_S = 2, 0.5, 0.5, 0.5


def example_inputs():
    torch.manual_seed(0)

    def frozen(*shape):
        return torch.randn(*shape) / 3

    def lora(*shape):
        return (torch.randn(*shape) / 2).requires_grad_()

    return (torch.randn(2, 3, 6, requires_grad=True),
            frozen(8, 6), lora(RANK, 6), lora(8, RANK),   # gate W, A, B
            frozen(8, 6), lora(RANK, 6), lora(8, RANK),   # up
            frozen(6, 8), lora(RANK, 8), lora(6, RANK),   # down
            torch.randn(2, 3, 6))


def matmul_lora(x, w, a, b, s):
    return x @ w.t() + s * ((x @ a.t()) @ b.t())


def reference(x, gate_w, gate_a, gate_b, up_w, up_a, up_b, down_w, down_a, down_b, c):
    e = matmul_lora(x, gate_w, gate_a, gate_b, GATE_S)
    g = matmul_lora(x, up_w, up_a, up_b, UP_S)
    h = e * torch.sigmoid(e) * g
    return (matmul_lora(h, down_w, down_a, down_b, DOWN_S) * c).sum()


def production(x, gate_w, gate_a, gate_b, up_w, up_a, up_b, down_w, down_a, down_b, c, bug="none"):
    # bug: "none", or a twin's: "up_scale" drops the LoRA scale s from the up projection's B gradient.
    batch, seq, hd = x.shape
    X = x.reshape(-1, hd)
    e = matmul_lora(X, gate_w, gate_a, gate_b, GATE_S)
    g = matmul_lora(X, up_w, up_a, up_b, UP_S)
    e32 = e.float()  # swiglu_fg_kernel: the gate in float32
    f = (e32 * torch.sigmoid(e32)).to(g.dtype)
    h = f * g
    out = matmul_lora(h, down_w, down_a, down_b, DOWN_S)
    loss = (out.reshape(batch, seq, -1) * c).sum()
    dY = c.reshape(-1, c.shape[-1])
    # DW = dY (W + s A^T B^T)^T, then swiglu_DWf_DW_dfg_kernel: h, df = DW * f, de = DW * g * dsilu(e)
    DW = dY @ down_w + DOWN_S * ((dY @ down_b) @ down_a)
    se = torch.sigmoid(e32)
    df = DW * f
    de = (DW.float() * g.float() * se * (1 + e32 * (1 - se))).to(DW.dtype)
    d_down_a = DOWN_S * ((dY @ down_b).t() @ h)
    d_down_b = DOWN_S * (dY.t() @ (h @ down_a.t()))
    d_up_a = UP_S * ((df @ up_b).t() @ X)
    d_up_b = (1.0 if bug == "up_scale" else UP_S) * (df.t() @ (X @ up_a.t()))
    d_gate_a = GATE_S * ((de @ gate_b).t() @ X)
    d_gate_b = GATE_S * (de.t() @ (X @ gate_a.t()))
    dX = df @ up_w + UP_S * ((df @ up_b) @ up_a)
    dX = dX + de @ gate_w + GATE_S * ((de @ gate_b) @ gate_a)
    return (loss, dX.reshape(batch, seq, hd), d_gate_a, d_gate_b, d_up_a, d_up_b, d_down_a, d_down_b)
