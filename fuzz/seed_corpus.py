#!/usr/bin/env python3
"""Builds the seed corpora of the fuzzers from the test fixtures.

  seed_corpus.py --source-dir . --torchtv build/torchtv --out build-fuzz/corpus

tvir: every .tvir under tests/golden, examples and fusions. capture_json: the
graph files `torchtv capture` writes for the pair files in tests/capture/pairs
(needs a Python with torch, as `torchtv capture` does). pt2_program: the
ExportedProgram JSON inside each .pt2 under tests/fixtures. manifest: the
`torchtv ci` manifests under examples and tests, and fuzz/seeds/manifest/.
torchscript: the forward graph of each TorchScript fixture as IR text, frozen
and inlined as the importer sees it, with parameters turned into typed graph
inputs (the fuzzer has no module to read them from); needs torch as well."""
import argparse
import glob
import os
import subprocess
import tempfile
import zipfile

ap = argparse.ArgumentParser()
ap.add_argument("--source-dir", required=True)
ap.add_argument("--torchtv", required=True)
ap.add_argument("--out", required=True)
ap.add_argument("--pairs", type=int, default=6, help="how many pair files to capture")
a = ap.parse_args()


def put(kind, name, data):
    d = os.path.join(a.out, kind)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, name.replace("/", "_")), "wb") as f:
        f.write(data)


for pattern in ("tests/golden/**/*.tvir", "examples/*.tvir", "fusions/*.tvir"):
    for p in glob.glob(os.path.join(a.source_dir, pattern), recursive=True):
        put("tvir", os.path.relpath(p, a.source_dir), open(p, "rb").read())

pairs = sorted(p for p in glob.glob(os.path.join(a.source_dir, "tests/capture/pairs/*.py"))
               if not os.path.basename(p).startswith("bad_"))[: a.pairs]
for pair in pairs:
    with tempfile.TemporaryDirectory() as d:
        r = subprocess.run([a.torchtv, "capture", pair, "-o", os.path.join(d, "c")], capture_output=True)
        for j in glob.glob(os.path.join(d, "c", "*.json")):
            put("capture_json", os.path.basename(pair) + "_" + os.path.basename(j), open(j, "rb").read())

for p in glob.glob(os.path.join(a.source_dir, "tests/fixtures/**/*.pt2"), recursive=True):
    with zipfile.ZipFile(p) as z:
        for n in z.namelist():
            if n.endswith("models/model.json") or n.endswith("serialized_exported_program.json"):
                put("pt2_program", os.path.relpath(p, a.source_dir), z.read(n))

for pattern in ("examples/**/*.toml", "tests/**/*.toml", "fuzz/seeds/manifest/*.toml"):
    for p in glob.glob(os.path.join(a.source_dir, pattern), recursive=True):
        put("manifest", os.path.relpath(p, a.source_dir), open(p, "rb").read())


def torchscript_ir(path, shapes):
    import torch
    m = torch.jit.load(path).eval()
    params = dict(m.named_parameters())
    g = torch._C._freeze_module(m._c, [], True, True)._get_method("forward").graph
    torch._C._jit_pass_inline(g)
    ins = list(g.inputs())
    paths = {ins[0]: ""}
    for n in list(g.nodes()):
        if n.kind() != "prim::GetAttr" or n.input() not in paths:
            continue
        fqn = (paths[n.input()] + "." if paths[n.input()] else "") + n.s("name")
        if fqn in params:
            v = g.addInput()
            v.setDebugName(fqn.replace(".", "_"))
            v.setType(torch._C.TensorType.create_from_tensor(params[fqn].detach()))
            n.output().replaceAllUsesWith(v)
        else:
            paths[n.output()] = fqn
    torch._C._jit_pass_dce(g)
    ins[0].setType(torch._C.TensorType.get())  # `self`, no longer used
    for v, shape in zip(ins[1:], shapes):
        v.setType(torch._C.TensorType.create_from_tensor(torch.zeros(*shape)))
    # parseIR reads a tensor constant only as `<Tensor>` of a complete type (it
    # makes an uninitialized tensor of that type), not as the printed values.
    constants = {}
    for n in g.nodes():
        if n.kind() == "prim::Constant" and n.hasAttribute("value") and n.kindOf("value") == "t":
            n.output().setType(torch._C.TensorType.create_from_tensor(n.t("value")))
            constants["%" + n.output().debugName()] = n.output().type().str()
    lines = []
    for line in str(g).splitlines():
        name = line.strip().split(" ", 1)[0]
        lines.append("  %s : %s = prim::Constant[value=<Tensor>]()" % (name, constants[name]) if name in constants else line)
    return ("\n".join(lines) + "\n").encode()


for inputs_txt in glob.glob(os.path.join(a.source_dir, "tests/fixtures/*/inputs.txt")):
    shapes = {}
    for line in open(inputs_txt):
        if line.strip() and not line.startswith("#"):
            name, types = line.split(None, 1)
            shapes[name] = [[int(d) for d in t.split("[")[1].rstrip("]").split(",")]
                            for t in types.strip().split(";") if "[" in t]
    for p in sorted(glob.glob(os.path.join(os.path.dirname(inputs_txt), "*.pt"))):
        model = os.path.basename(p).split(".")[0]
        try:
            put("torchscript", os.path.relpath(p, a.source_dir) + ".ir", torchscript_ir(p, shapes.get(model, [])))
        except Exception as e:  # no torch, or a fixture this torch cannot load
            print("torchscript: skipped", p, e)

for kind in ("tvir", "capture_json", "pt2_program", "manifest", "torchscript"):
    print(kind, len(os.listdir(os.path.join(a.out, kind))) if os.path.isdir(os.path.join(a.out, kind)) else 0)
