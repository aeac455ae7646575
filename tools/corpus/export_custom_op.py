"""Exports the custom-op fixtures (issue 16, item 5) with torch.export, on a machine with
torch >= 2.4 (torch.library.custom_op): a tiny model that calls a user kernel `tvx::rmsnorm`
(registered with torch.library.custom_op; torchtv never trusts its kernel) and the same model
with RMSNorm written out in plain PyTorch. `torchtv check` decides them against each other with
`--fusions tests/fixtures/custom_op/fusions` (the definition of tvx::rmsnorm), tests/e2e
checks it.

    python3 tools/corpus/export_custom_op.py --out tests/fixtures/custom_op
"""
import argparse
import os

import torch


@torch.library.custom_op("tvx::rmsnorm", mutates_args=())
def rmsnorm(x: torch.Tensor, w: torch.Tensor, eps: float) -> torch.Tensor:
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w


@rmsnorm.register_fake
def _(x, w, eps):
    return torch.empty_like(x)


class Fused(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.randn(8))
        self.lin = torch.nn.Linear(8, 8)

    def forward(self, x):
        return self.lin(torch.ops.tvx.rmsnorm(x, self.w, 1e-6))


class Plain(Fused):
    def forward(self, x):
        return self.lin(x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * self.w)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    torch.manual_seed(0)
    x = torch.randn(4, 8)
    for name, cls in (("rmsnorm_custom_op", Fused), ("rmsnorm_plain", Plain)):
        ep = torch.export.export(cls(), (x,))
        torch.export.save(ep, os.path.join(args.out, name + ".pt2"))
        print(name, ep.graph_module.code)


if __name__ == "__main__":
    main()
