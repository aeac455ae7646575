"""Exports the masked CPU flash-attention fixtures (issue 16, item 5) with torch.export, on a
machine with torch >= 2.4: `aten::_scaled_dot_product_flash_attention_for_cpu` and its backward
called with an `attn_mask` (additive float, and boolean), against the same attention written out
in plain PyTorch (forward, and the hand-derived backward). `torchtv check` decides each flash
archive against its plain twin with the bundled definitions (fusions/inductor/inductor.tvir);
tests/e2e/run_import_e2e.py checks them, and the planted bug (a wrong scale) is refuted.

    python3 tools/corpus/export_masked_attention.py --out tests/fixtures/attention_mask

The kernel takes only a mask of the query's dtype ("Attention mask is the same data type as
query", torch 2.11, printed below): F.scaled_dot_product_attention turns a boolean mask into
the additive form before it calls the kernel, so only the additive form is exported here (the
boolean one is fusions/attention.tvir's scaled_dot_product_attention definition).
"""
import argparse
import math
import os

import torch

B, H, L, S, E = 1, 2, 4, 4, 4
FLASH = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu
FLASH_BACKWARD = torch.ops.aten._scaled_dot_product_flash_attention_for_cpu_backward


def additive(mask):
    """A boolean mask (True = the key takes part) as the additive form."""
    if mask.dtype != torch.bool:
        return mask
    return torch.zeros(mask.shape).masked_fill(~mask, float("-inf"))


def plain_forward(q, k, v, mask, scale):
    x = (q @ k.transpose(-2, -1)) * scale + additive(mask)
    m = x.amax(-1, keepdim=True)
    e = torch.exp(x - m)
    z = e.sum(-1, keepdim=True)
    p = e / z
    return p @ v, (m + torch.log(z)).squeeze(-1), p


class FlashForward(torch.nn.Module):
    def __init__(self, scale=None):
        super().__init__()
        self.scale = scale

    def forward(self, q, k, v, mask):
        o, lse = FLASH(q, k, v, 0.0, False, attn_mask=mask, scale=self.scale)
        return o, lse


class PlainForward(torch.nn.Module):
    def forward(self, q, k, v, mask):
        o, lse, _ = plain_forward(q, k, v, mask, 1.0 / math.sqrt(E))
        return o, lse


class FlashTrain(torch.nn.Module):
    def forward(self, q, k, v, mask, g):
        o, lse = FLASH(q, k, v, 0.0, False, attn_mask=mask)
        gq, gk, gv = FLASH_BACKWARD(g, q, k, v, o, lse, 0.0, False, attn_mask=mask)
        return o, gq, gk, gv


class PlainTrain(torch.nn.Module):
    def forward(self, q, k, v, mask, g):
        scale = 1.0 / math.sqrt(E)
        o, _, p = plain_forward(q, k, v, mask, scale)
        gv = p.transpose(-2, -1) @ g
        gp = g @ v.transpose(-2, -1)
        gs = p * (gp - (gp * p).sum(-1, keepdim=True))
        gq = (gs @ k) * scale
        gk = (gs.transpose(-2, -1) @ q) * scale
        return o, gq, gk, gv


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    q, k, v, g = (torch.randn(B, H, L, E) for _ in range(4))
    masks = {
        "addmask": torch.randn(L, S).masked_fill(torch.ones(L, S, dtype=torch.bool).triu(1), float("-inf")),
        "boolmask": torch.ones(L, S, dtype=torch.bool).tril(),
    }
    mask = masks["addmask"]
    # The kernel against the plain form, on these inputs (for the record).
    o, lse = FLASH(q, k, v, 0.0, False, attn_mask=mask)
    po, plse, _ = plain_forward(q, k, v, mask, 1.0 / math.sqrt(E))
    print("forward: max |flash - plain| =", (o - po).abs().max().item(), (lse - plse).abs().max().item())
    ref = PlainTrain()(q, k, v, mask, g)
    print("train: max |flash - plain| =", [(a - b).abs().max().item() for a, b in zip(FlashTrain()(q, k, v, mask, g), ref)])
    try:
        FLASH(q, k, v, 0.0, False, attn_mask=masks["boolmask"])
    except RuntimeError as e:
        print("boolean mask refused by the kernel:", str(e)[:200])
    fwd, train = (q, k, v, mask), (q, k, v, mask, g)
    for name, mod, example in (("flash_addmask", FlashForward(), fwd),
                               ("plain_addmask", PlainForward(), fwd),
                               ("flash_addmask__scale", FlashForward(scale=0.4), fwd),
                               ("flash_addmask_train", FlashTrain(), train),
                               ("plain_addmask_train", PlainTrain(), train)):
        ep = torch.export.export(mod, example)
        torch.export.save(ep, os.path.join(args.out, name + ".pt2"))
        print(name, "ops:", sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"}))

if __name__ == "__main__":
    main()
