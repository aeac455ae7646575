"""A pre-residual transformer train step (attention + ReLU MLP per layer, mean squared loss),
hand-written forward and backward in production, autograd in the reference. Production's
attention backward scales by 1/dk, not 1/sqrt(dk) (line 13): the planted bug of issue 36."""
import math

import torch

MODE = "train_step"
N_LAYERS = 4                    # tests/e2e/test_locate.py rewrites this line and the next
B, T, D, F = 2, 4, 16, 32

def scores_backward(p, gp):
    return p * (gp - (gp * p).sum(-1, keepdim=True)) * (1.0 / D)    # the bug: 1/sqrt(D)


def example_inputs():
    torch.manual_seed(0)
    x = torch.randn(B, T, D)
    y = torch.randn(B, T, D)
    ws = []
    for _ in range(N_LAYERS):
        for shape in ((D, D), (D, D), (D, D), (D, D), (D, F), (F, D)):
            ws.append((torch.randn(*shape) / math.sqrt(shape[0])).requires_grad_())
    return (x, y, *ws)


def reference(x, y, *ws):
    h = x
    for i in range(N_LAYERS):
        wq, wk, wv, wo, w1, w2 = ws[6 * i:6 * i + 6]
        q, k, v = h @ wq, h @ wk, h @ wv
        p = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(D), -1)
        h = h + (p @ v) @ wo
        h = h + torch.relu(h @ w1) @ w2
    return ((h - y) ** 2).mean()


def production(x, y, *ws):
    h = x
    saved = []
    for i in range(N_LAYERS):
        wq, wk, wv, wo, w1, w2 = ws[6 * i:6 * i + 6]
        q, k, v = h @ wq, h @ wk, h @ wv
        p = torch.softmax((q @ k.transpose(-2, -1)) / math.sqrt(D), -1)
        a = p @ v
        h_attn = h + a @ wo
        u = h_attn @ w1
        r = torch.relu(u)
        saved.append((h, q, k, v, p, a, h_attn, u, r))
        h = h_attn + r @ w2
    diff = h - y
    loss = (diff * diff).mean()
    g = diff * (2.0 / diff.numel())
    grads = [None] * (6 * N_LAYERS)
    for i in reversed(range(N_LAYERS)):
        wq, wk, wv, wo, w1, w2 = ws[6 * i:6 * i + 6]
        h, q, k, v, p, a, h_attn, u, r = saved[i]
        grads[6 * i + 5] = (r.transpose(-2, -1) @ g).sum(0)
        gu = (g @ w2.t()) * (u > 0)
        grads[6 * i + 4] = (h_attn.transpose(-2, -1) @ gu).sum(0)
        g = g + gu @ w1.t()
        grads[6 * i + 3] = (a.transpose(-2, -1) @ g).sum(0)
        ga = g @ wo.t()
        gv = p.transpose(-2, -1) @ ga
        gp = ga @ v.transpose(-2, -1)
        gs = scores_backward(p, gp)
        gq = gs @ k
        gk = gs.transpose(-2, -1) @ q
        grads[6 * i + 0] = (h.transpose(-2, -1) @ gq).sum(0)
        grads[6 * i + 1] = (h.transpose(-2, -1) @ gk).sum(0)
        grads[6 * i + 2] = (h.transpose(-2, -1) @ gv).sum(0)
        g = g + gq @ wq.t() + gk @ wk.t() + gv @ wv.t()
    return (loss, *grads)
