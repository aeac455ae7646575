#!/usr/bin/env python3
"""Builds the seed corpora of the fuzzers from the test fixtures.

  seed_corpus.py --source-dir . --torchtv build/torchtv --out build-fuzz/corpus

tvir: every .tvir under tests/golden, examples and fusions. capture_json: the
graph files `torchtv capture` writes for the pair files in tests/capture/pairs
(needs a Python with torch, as `torchtv capture` does). pt2_program: the
ExportedProgram JSON inside each .pt2 under tests/fixtures."""
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

for kind in ("tvir", "capture_json", "pt2_program"):
    print(kind, len(os.listdir(os.path.join(a.out, kind))) if os.path.isdir(os.path.join(a.out, kind)) else 0)
