"""N-layer pre-norm transformer train step (RMSNorm, causal attention, SwiGLU MLP, cross-entropy
over the vocabulary), as a torchtv pair file.

Reference: plain autograd code; the captured graph is the joint forward+backward graph.
Production: explicit forward and hand-derived backward (no autograd) calling fused custom ops
(tvbench::rmsnorm, attention, swiglu and their backward ops), whose meaning is given in FUSIONS.

This file is the template of bench/gen_transformer.py, which writes one copy per size, layer
count and planted bug into bench/pairs/ with the configuration block below replaced. It is a
valid pair file as it stands (small dims, one layer).

Cross-entropy takes probability targets `y` (T x V, e.g. one-hot rows): the op registry has no
gather/arange yet, which integer class targets would need in the hand-written production side.
"""
import math

import torch
import torch.nn.functional as F

MODE = "train_step"

# --- configuration (written by bench/gen_transformer.py) ---
N_LAYERS = 1
D, T, H, F_HID, V = 16, 8, 2, 32, 32   # model dim, tokens, heads, SwiGLU hidden dim, vocabulary
SHAPE_ONLY = False                       # True: meta example inputs (nothing allocated)
SMALL = (16, 8, 32, 32)                  # D, T, F_HID, V of small_inputs() (same H and layers)
BUG = "none"                             # planted bug, see bug() below
# --- end configuration ---

EPS = 1e-5
PER_LAYER = 9   # attn_norm, wq, wk, wv, wo, mlp_norm, w_gate, w_up, w_down
BUGS = ("none", "eps", "dropped_term", "reduction_dim", "tiny_term")


def bug(name):
    """Is the planted bug `name` active? (production only; BUGS lists them)"""
    return BUG == name


# ---- fused ops: plain-PyTorch definitions, registered as their CPU and Meta kernels ----------

def rmsnorm_ref(x, w, eps):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def rmsnorm_backward_ref(grad, x, w, eps):
    rstd = torch.rsqrt((x * x).mean(-1, keepdim=True) + eps)
    xhat = x * rstd
    gw = (grad * xhat).sum(0)
    gxhat = grad * w
    gx = rstd * (gxhat - xhat * (gxhat * xhat).mean(-1, keepdim=True))
    return gx, gw


def _causal_probs(q, k, scale):
    n = q.shape[-2]
    s = (q @ k.transpose(-2, -1)) * scale
    s = s.masked_fill(torch.ones(n, n, dtype=torch.bool).triu(1), float("-inf"))
    return torch.softmax(s, -1)


def attention_ref(q, k, v, scale):
    return _causal_probs(q, k, scale) @ v


def attention_backward_ref(grad, q, k, v, scale):
    p = _causal_probs(q, k, scale)
    gv = p.transpose(-2, -1) @ grad
    gp = grad @ v.transpose(-2, -1)
    gs = p * (gp - (gp * p).sum(-1, keepdim=True)) * scale
    return gs @ k, gs.transpose(-2, -1) @ q, gv


def swiglu_ref(gate, up):
    return F.silu(gate) * up


def swiglu_backward_ref(grad, gate, up):
    s = torch.sigmoid(gate)
    return grad * up * s * (1 + gate * (1 - s)), grad * gate * s


_SCHEMAS = {
    "rmsnorm": ("rmsnorm(Tensor x, Tensor w, float eps) -> Tensor", rmsnorm_ref),
    "rmsnorm_backward": ("rmsnorm_backward(Tensor grad, Tensor x, Tensor w, float eps) -> (Tensor, Tensor)",
                         rmsnorm_backward_ref),
    "attention": ("attention(Tensor q, Tensor k, Tensor v, float scale) -> Tensor", attention_ref),
    "attention_backward": ("attention_backward(Tensor grad, Tensor q, Tensor k, Tensor v, float scale) "
                           "-> (Tensor, Tensor, Tensor)", attention_backward_ref),
    "swiglu": ("swiglu(Tensor gate, Tensor up) -> Tensor", swiglu_ref),
    "swiglu_backward": ("swiglu_backward(Tensor grad, Tensor gate, Tensor up) -> (Tensor, Tensor)",
                        swiglu_backward_ref),
}


def _register_ops():
    """Defines tvbench::* once per process (a library namespace can be defined only once; every
    generated pair file has the same op definitions, bugs live in production() only)."""
    try:
        torch.ops.tvbench.rmsnorm.default
        return None
    except (AttributeError, RuntimeError):
        pass
    lib = torch.library.Library("tvbench", "DEF")
    for name, (schema, fn) in _SCHEMAS.items():
        lib.define(schema)
        lib.impl(name, fn, "CPU")
        lib.impl(name, fn, "Meta")   # shape-only (fake tensor) capture
    return lib


_LIB = _register_ops()
FUSIONS = {"tvbench::" + name: fn for name, (_, fn) in _SCHEMAS.items()}
ops = torch.ops.tvbench


# ---- inputs ---------------------------------------------------------------------------------

def input_shapes(d=D, t=T, f_hid=F_HID, v=V):
    """(shape, requires_grad) of every input: x, y, then PER_LAYER weights per layer, then the
    final norm's weight and the output projection."""
    layer = [(d,), (d, d), (d, d), (d, d), (d, d), (d,), (d, f_hid), (d, f_hid), (f_hid, d)]
    return ([((t, d), True), ((t, v), False)] + [(s, True) for _ in range(N_LAYERS) for s in layer]
            + [((d,), True), ((d, v), True)])


def example_inputs():
    if SHAPE_ONLY:
        return tuple(torch.empty(s, device="meta", requires_grad=rg) for s, rg in input_shapes())
    return _random_inputs(input_shapes())


def small_inputs():
    """The same model (layers, heads) at the reduced dims SMALL, with real tensors: where torchtv
    runs the functions of a shape-only (SHAPE_ONLY) pair to refute them (the functions take their
    sizes from the inputs' shapes)."""
    return _random_inputs(input_shapes(*SMALL))


def _random_inputs(shapes):
    torch.manual_seed(0)
    out = []
    for i, (s, rg) in enumerate(shapes):
        if i == 1:      # targets: one probability distribution per token
            t = torch.softmax(torch.randn(s), -1)
        elif len(s) == 1:   # norm weights around 1
            t = 1 + 0.1 * torch.randn(s)
        else:
            t = torch.randn(s) / math.sqrt(s[0]) if i > 0 else torch.randn(s)
        out.append(t.requires_grad_(rg))
    return tuple(out)


def split_heads(t):
    return t.view(t.shape[0], H, -1).transpose(0, 1)


def merge_heads(t):
    return t.transpose(0, 1).reshape(t.shape[1], -1)


def scale_of(q):
    """Attention's 1/sqrt(head dim)."""
    return 1.0 / math.sqrt(q.shape[-1])


# ---- reference: plain autograd code ----------------------------------------------------------

def rms_norm(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + EPS) * w


def causal_attention(q, k, v):
    s = (q @ k.transpose(-2, -1)) * scale_of(q)
    n = s.shape[-1]
    mask = torch.ones(n, n, dtype=torch.bool).triu(1)
    return torch.softmax(s.masked_fill(mask, float("-inf")), -1) @ v


def reference(x, y, *params):
    for l in range(N_LAYERS):
        an, wq, wk, wv, wo, mn, wg, wu, wd = params[PER_LAYER * l:PER_LAYER * (l + 1)]
        h = rms_norm(x, an)
        a = causal_attention(split_heads(h @ wq), split_heads(h @ wk), split_heads(h @ wv))
        x = x + merge_heads(a) @ wo
        h = rms_norm(x, mn)
        x = x + (F.silu(h @ wg) * (h @ wu)) @ wd
    fn, wout = params[-2:]
    logits = rms_norm(x, fn) @ wout
    return F.cross_entropy(logits, y)


# ---- production: explicit forward, hand-derived backward, fused ops ---------------------------

def production(x, y, *params):
    saved = []
    for l in range(N_LAYERS):
        an, wq, wk, wv, wo, mn, wg, wu, wd = params[PER_LAYER * l:PER_LAYER * (l + 1)]
        eps_mlp = EPS + 1e-6 if bug("eps") and l == 0 else EPS
        h1 = ops.rmsnorm(x, an, EPS)
        q, k, v = split_heads(h1 @ wq), split_heads(h1 @ wk), split_heads(h1 @ wv)
        am = merge_heads(ops.attention(q, k, v, scale_of(q)))
        x1 = x + am @ wo
        h2 = ops.rmsnorm(x1, mn, eps_mlp)
        g, u = h2 @ wg, h2 @ wu
        m = ops.swiglu(g, u)
        saved.append((x, h1, q, k, v, am, x1, h2, g, u, m, eps_mlp))
        x = x1 + m @ wd
    fn, wout = params[-2:]
    hf = ops.rmsnorm(x, fn, EPS)
    logits = hf @ wout
    logp = logits - logits.logsumexp(-1, keepdim=True)
    n_tokens = x.shape[0]
    loss = -(y * logp).sum() / n_tokens

    # d loss / d logits = (softmax * sum_v y - y) / T: the sum is 1 only for normalized targets
    ysum = y.sum(0 if bug("reduction_dim") else -1, keepdim=True)
    glogits = (torch.exp(logp) * ysum - y) / n_tokens
    gwout = hf.t() @ glogits
    if bug("tiny_term"):
        gwout = gwout + 1e-7 * wout
    gx, gfn = ops.rmsnorm_backward(glogits @ wout.t(), x, fn, EPS)
    grads = [None] * len(params)
    for l in reversed(range(N_LAYERS)):
        an, wq, wk, wv, wo, mn, wg, wu, wd = params[PER_LAYER * l:PER_LAYER * (l + 1)]
        x0, h1, q, k, v, am, x1, h2, g, u, m, eps_mlp = saved[l]
        gwd = m.t() @ gx
        gg, gu = ops.swiglu_backward(gx @ wd.t(), g, u)
        gwg, gwu = h2.t() @ gg, h2.t() @ gu
        dx, gmn = ops.rmsnorm_backward(gg @ wg.t() + gu @ wu.t(), x1, mn, eps_mlp)
        gx = gx + dx
        gwo = am.t() @ gx
        gq, gk, gv = ops.attention_backward(split_heads(gx @ wo.t()), q, k, v, scale_of(q))
        gq, gk, gv = merge_heads(gq), merge_heads(gk), merge_heads(gv)
        gwq, gwk, gwv = h1.t() @ gq, h1.t() @ gk, h1.t() @ gv
        if bug("dropped_term") and l == 0:
            gh1 = gq @ wq.t() + gv @ wv.t()
        else:
            gh1 = gq @ wq.t() + gk @ wk.t() + gv @ wv.t()
        dx, gan = ops.rmsnorm_backward(gh1, x0, an, EPS)
        gx = gx + dx
        grads[PER_LAYER * l:PER_LAYER * (l + 1)] = [gan, gwq, gwk, gwv, gwo, gmn, gwg, gwu, gwd]
    grads[-2:] = [gfn, gwout]
    return (loss, gx, *grads)
