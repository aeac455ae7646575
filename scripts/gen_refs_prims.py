#!/usr/bin/env python3
"""Writes third_party/core_aten/refs_prims.txt: the prims torch._refs calls (torch 1.13).

Every `prims.NAME` that torch/_refs/**.py names and that torch.ops.prims has. docs/ops.md
(scripts/gen_ops_table.py) reports how many of them have semantics.

  /usr/bin/python3 scripts/gen_refs_prims.py
"""
import os
import re

import torch
import torch._refs

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    used = set()
    for folder, _, files in os.walk(os.path.dirname(torch._refs.__file__)):
        for name in files:
            if name.endswith(".py"):
                with open(os.path.join(folder, name), encoding="utf-8") as f:
                    used |= set(re.findall(r"\bprims\.([a-z_0-9]+)\b", f.read()))
    ops = sorted(n for n in used if hasattr(torch.ops.prims, n) and not n.startswith("_"))
    with open(os.path.join(ROOT, "third_party/core_aten/refs_prims.txt"), "w", encoding="utf-8") as f:
        f.write("".join(f"prims::{n}\n" for n in ops))


if __name__ == "__main__":
    main()
