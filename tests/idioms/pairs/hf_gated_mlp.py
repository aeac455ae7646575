"""Llama's gated MLP with the gate and up projections fused into one matmul, as inference engines
write it, against HF transformers' three projections.

Follows huggingface/transformers src/transformers/models/llama/modeling_llama.py, `LlamaMLP.forward`
(down_proj(act_fn(gate_proj(x)) * up_proj(x)), act_fn SiLU), and the fused gate_up_proj of
e.g. models/phi3/modeling_phi3.py (`Phi3MLP`: gate_up_proj, then chunk(2, dim=-1))."""
import torch
import torch.nn.functional as F

MODE = "forward"


def example_inputs():
    torch.manual_seed(0)
    d, h = 4, 6
    return torch.randn(3, d), torch.randn(h, d), torch.randn(h, d), torch.randn(d, h)


def reference(x, w_gate, w_up, w_down):
    return F.linear(F.silu(F.linear(x, w_gate)) * F.linear(x, w_up), w_down)


def production(x, w_gate, w_up, w_down, swap=False):
    gate_up = F.linear(x, torch.cat((w_gate, w_up), dim=0))
    gate, up = gate_up.chunk(2, dim=-1)
    if swap:
        gate, up = up, gate
    return F.linear(up * F.silu(gate), w_down)
