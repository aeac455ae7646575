#!/usr/bin/python3
"""Metamorphic testing of torchtv's prover (issue 18): pairs whose verdict is known by construction.

    /usr/bin/python3 tools/metamorphic/metamorphic.py --torchtv build/torchtv [--seed 1] [--count 12]
        [--sizes small,real] [--seeds NAME,...] [--classes NAME,...] [--out DIR] [--timeout 20] [-j 2]
        [--json FILE]

Starts from seed pair files (the project's train-step pairs in tests/capture/pairs/, the seeds in
tools/metamorphic/seeds/, the bench generator's transformer at small dims and, with --sizes real,
at realistic dims shape-only) and writes generated pair files, each the seed with random rewrites
of its production side (rewrites.py):

  self  reference = the seed's production as written, production = the rewritten copy (MODE
        "forward"): the expected level is the rewrites' own (bitwise or real);
  train reference = the seed's autograd reference, production = the rewritten copy: the expected
        level is the weaker of the seed's and the rewrites'.

A case is a preserving case (rewrites tagged bitwise or real) or a bug case (one bug mutation,
maybe after preserving rewrites). The ground truth is checked before torchtv sees the pair: both
functions run eagerly in float64 on the pair's inputs and a random draw, and a preserving case must
agree to 1e-9 relative, a bug case must differ by more than 1e-8 relative somewhere; a generated
pair that fails this (a mutation without effect, a rewrite that changes a shape) is dropped and
counted, never judged.

Then each pair is captured (in this process, as `torchtv capture` does) and decided by
`torchtv check DIR --format json`. Judgement (a soundness failure fails the run, exit 1):
  preserving, level L: equivalent at level L -> proven; equivalent real for a bitwise rewrite ->
      proven at a weaker level (a gap), unless the float32 eager runs differ in some bit (the
      rewrite is not bitwise in PyTorch's kernels there: proven); unknown -> a gap;
      not_equivalent -> FAIL; equivalent bitwise -> FAIL when the float32 eager runs differ in
      some bit (the claim is false), else proven (a real rewrite may happen to be exact);
  bug: not_equivalent -> refuted; unknown -> a gap; equivalent -> FAIL;
  error (capture or check) -> FAIL (the generator must only write valid pairs).
Generation is deterministic by --seed (and the case index).
"""
import argparse
import ast
import concurrent.futures
import copy
import json
import os
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(REPO, "src", "capture"))
sys.path.insert(0, os.path.join(REPO, "bench"))

import rewrites  # noqa: E402

PAIRS = os.path.join(REPO, "tests", "capture", "pairs")
SEED_DIR = os.path.join(HERE, "seeds")
# name -> (path or None for the bench transformer, expected level of the seed pair itself)
PROJECT_SEEDS = ("gelu_mlp_train", "swiglu_mlp_train", "rmsnorm_train", "layernorm_train", "softmax_xent_train",
                 "causal_attention_train")
NOT_REWRITTEN = {"bug", "example_inputs", "small_inputs", "reference", "_register_ops", "input_shapes",
                 "_random_inputs"}
LEVELS = {"bitwise": 2, "real": 1}


# Realistic dims (issue 18, item 2), the bench transformer's (bench/gen_transformer.py, `real`): model
# dim, tokens, MLP hidden dim, vocabulary, heads, head dim.
D, T, F_HID, V, H, DH = 4096, 2048, 11008, 32000, 32, 128
# seed -> the shapes of its inputs at realistic dims (dtypes and requires_grad as at small dims)
_MLP = [(T, D), (D, F_HID), (F_HID, D), (T, D)]
_ATTENTION = [(H, T, DH)] * 4
REAL_SHAPES = {
    "gelu_mlp_train": _MLP,
    "gelu_tanh_mlp_train": _MLP,
    "relu_mlp_train": [(T, D), (D, F_HID), (F_HID,), (F_HID, D), (T, D)],
    "swiglu_mlp_train": [(T, D), (D, F_HID), (D, F_HID), (F_HID, D), (T, D)],
    "rmsnorm_train": [(T, D), (D,), (T, D)],
    "layernorm_train": [(T, D), (D,), (D,)],
    "softmax_xent_train": [(T, V), (T, V)],
    "xent_int_train": [(T, V), (T,)],
    "causal_attention_train": _ATTENTION,
    "attention_unmasked_train": _ATTENTION,
    "attention_masked_train": _ATTENTION + [(T, T)],
}


def real_variant(text, shapes):
    """The seed pair at realistic dims, captured shape-only (as the bench transformer at `real`): its
    example_inputs() becomes small_inputs() (where torchtv runs the functions to refute, and the
    generator checks the ground truth) and a new example_inputs() gives meta tensors of `shapes`
    with the small inputs' dtypes and requires_grad. The seed's functions take their sizes from
    their inputs' shapes."""
    tree = ast.parse(text)
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == "example_inputs":
            n.name = "small_inputs"
    return ast.unparse(tree) + """


def example_inputs():
    # realistic dims, shape-only (written by tools/metamorphic/metamorphic.py)
    return tuple(torch.empty(s, dtype=t.dtype, device="meta", requires_grad=t.requires_grad)
                 for s, t in zip(%r, small_inputs()))
""" % (shapes,)


def seed_sources(sizes):
    """name -> pair-file text of every seed; with size `real`, also NAME_real for each seed of
    REAL_SHAPES (and the bench transformer at each size)."""
    out = {}
    for name in PROJECT_SEEDS:
        with open(os.path.join(PAIRS, name + ".py")) as f:
            out[name] = f.read()
    for fn in sorted(os.listdir(SEED_DIR)):
        if fn.endswith(".py"):
            with open(os.path.join(SEED_DIR, fn)) as f:
                out[fn[:-3]] = f.read()
    if "real" in sizes:
        for name, shapes in REAL_SHAPES.items():
            out[name + "_real"] = real_variant(out[name], shapes)
    import gen_transformer
    for size in sizes:
        out["transformer_%s_L1" % size] = gen_transformer.render(size, 1)
    return out


def size_of(seed_name):
    return "real" if seed_name.startswith("transformer_real") or seed_name.endswith("_real") else "small"


# ---- generation -------------------------------------------------------------------------------

def _functions(tree):
    return {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}


def _called_names(fn):
    return {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}


def _reachable(fns, root):
    seen, todo = set(), [root]
    while todo:
        f = todo.pop()
        if f in seen or f not in fns:
            continue
        seen.add(f)
        todo.extend(_called_names(fns[f]))
    return seen


def _float_names(tree):
    out = {}
    for n in tree.body:
        if (isinstance(n, ast.Assign) and len(n.targets) == 1 and isinstance(n.targets[0], ast.Name)
                and isinstance(n.value, ast.Constant) and type(n.value.value) is float):
            out[n.targets[0].id] = n.value.value
    return out


class Case:
    def __init__(self, **kw):
        self.__dict__.update(kw)

    def summary(self):
        return dict((k, v) for k, v in self.__dict__.items() if k not in ("text",))


def _rename_calls(fn, mapping):
    for n in ast.walk(fn):
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in mapping:
            n.func.id = mapping[n.func.id]


def generate_case(seed_name, seed_text, rng, kind, mode, classes=None):
    """One generated pair from a seed, or None when no rewrite of the kind applies. `classes`: only
    these rewrites and mutations (names of rewrites.CATALOG; None: all)."""
    tree = ast.parse(seed_text)
    fns = _functions(tree)
    mine = (_reachable(fns, "production") - _reachable(fns, "reference")) - NOT_REWRITTEN | {"production"}
    mapping = {name: name + "_mm" for name in mine}
    copies = []
    for name in sorted(mine):
        c = copy.deepcopy(fns[name])
        c.name = mapping[name]
        _rename_calls(c, mapping)
        copies.append(c)
    ctx = rewrites.Ctx(_float_names(tree), fns)

    def pick(level_filter, count):
        applied = []
        for _ in range(count):
            options = []
            for r in rewrites.CATALOG:
                if (level_filter(r.level) and not (r.narrows and mode == "self")
                        and (classes is None or r.name in classes)):
                    n = sum(len(r.sites(c, ctx)) for c in copies)
                    if n:
                        options.append((r, n))
            if not options:
                break
            r, n = rng.choice(options)
            k = rng.randrange(n)
            for c in copies:
                m = len(r.sites(c, ctx))
                if k < m:
                    rewrites.apply_at(c, r, k, ctx)
                    applied.append("%s@%s#%d" % (r.name, c.name[:-3], k))
                    break
                k -= m
        return applied

    if kind == "preserve":
        applied = pick(lambda lv: lv != rewrites.BUG, rng.choice((1, 1, 2, 3)))
        if not applied:
            return None
        levels = [rewrites.BY_NAME[a.split("@")[0]].level for a in applied]
        level = min(levels, key=LEVELS.get)
        if mode == "train":     # autograd against an explicit backward: real at best (the seeds' level)
            level = "real"
        bug = None
    else:
        applied = pick(lambda lv: lv != rewrites.BUG, rng.choice((0, 0, 1)))
        bugs = pick(lambda lv: lv == rewrites.BUG, 1)
        if not bugs:
            return None
        bug = bugs[0]
        level = None
    # the module: prelude, the seed, the rewritten copies; then the roles
    out = ast.Module(body=[], type_ignores=[])
    body = []
    for n in tree.body:
        if isinstance(n, ast.FunctionDef) and n.name == "reference" and mode == "self":
            n.name = "_mm_seed_reference"
        elif isinstance(n, ast.FunctionDef) and n.name == "production":
            n.name = "reference" if mode == "self" else "_mm_seed_production"
        elif (mode == "self" and isinstance(n, ast.Assign) and isinstance(n.targets[0], ast.Name)
              and n.targets[0].id == "MODE"):
            n = ast.parse('MODE = "forward"').body[0]
        body.append(n)
    for c in copies:
        if c.name == "production_mm":
            c.name = "production"
        body.append(c)
    out.body = body
    ast.fix_missing_locations(out)
    primary = (rewrites.BY_NAME[bug.split("@")[0]] if bug else
               max((rewrites.BY_NAME[a.split("@")[0]] for a in applied), key=lambda r: -LEVELS[r.level]))
    return Case(seed=seed_name, size=size_of(seed_name), mode=mode, kind=kind, level=level, rewrites=applied,
                bug=bug, rewrite_class=primary.name, text=ast.unparse(out))


def candidates(seed, sources, seeds=None, bug_share=0.4, limit=100000, classes=None):
    """Generated cases, deterministic in (seed, case index); the caller keeps the valid ones."""
    names = sorted(seeds or sources)
    for i in range(limit):
        rng = random.Random("%s:%d" % (seed, i))
        name = names[rng.randrange(len(names))]
        kind = "bug" if rng.random() < bug_share else "preserve"
        mode = "self" if rng.random() < 0.5 else "train"
        case = generate_case(name, sources[name], rng, kind, mode, classes)
        if case is None:
            continue
        case.name = "mm%s_%03d_%s_%s_%s" % (seed, i, name, mode, case.rewrite_class)
        header = ("# Generated by tools/metamorphic/metamorphic.py --seed %s (case %d); do not edit.\n"
                  "# seed pair: %s; mode: %s; rewrites: %s; bug: %s; expected: %s\n"
                  % (seed, i, name, mode, ", ".join(case.rewrites) or "none", case.bug or "none",
                     "not equivalent (or unknown)" if case.bug else "equivalent at level <= " + case.level))
        case.text = header + rewrites.PRELUDE + "\n" + case.text + "\n"
        yield case


# ---- ground truth by running the code -----------------------------------------------------------

def _relative_gap(a, b):
    import torch
    if a.shape != b.shape:
        return float("inf")
    a, b = a.detach().double(), b.detach().double()
    if not torch.equal(torch.isnan(a), torch.isnan(b)):
        return float("inf")
    fa, fb = torch.nan_to_num(a, nan=0.0), torch.nan_to_num(b, nan=0.0)
    if not torch.equal(torch.isinf(fa), torch.isinf(fb)) or not torch.equal(fa[torch.isinf(fa)], fb[torch.isinf(fb)]):
        return float("inf")
    fa = torch.where(torch.isinf(fa), torch.zeros_like(fa), fa)
    fb = torch.where(torch.isinf(fb), torch.zeros_like(fb), fb)
    scale = max(fa.abs().max().item() if fa.numel() else 0.0, 1e-30)
    return (fa - fb).abs().max().item() / scale if fa.numel() else 0.0


def ground_truth(pair):
    """(largest float64 relative gap between the two sides, do the float32 runs agree bit for bit)."""
    import torch
    from torchtv_capture import eager
    inputs = pair.small_inputs if pair.fake else pair.example_inputs
    if pair.fake:
        # A shape-only pair runs at small_inputs() here, but is captured at its realistic shapes: a
        # mutation may break a shape only there (a swapped q @ k is square at T = DH = 4). Running
        # production on the meta inputs raises then, and the case is dropped as one that does not run.
        eager._run_production(pair, eager._fresh(pair.example_inputs))
    gap, bitwise = 0.0, True
    for _, draw in list(eager._draws(inputs, "inputs"))[:3]:
        r = eager._run_reference(pair, eager._fresh(draw, torch.float64))
        p = eager._run_production(pair, eager._fresh(draw, torch.float64))
        if len(r) != len(p):
            return float("inf"), False
        gap = max([gap] + [_relative_gap(a, b) for a, b in zip(r, p)])
        r32 = eager._run_reference(pair, eager._fresh(draw))
        p32 = eager._run_production(pair, eager._fresh(draw))
        bitwise = bitwise and all(a.shape == b.shape and eager._bits_equal(a.detach(), b.detach())
                                  for a, b in zip(r32, p32))
    return gap, bitwise


def capture_all(stream, count, out_dir):
    """Takes cases from `stream` until `count` are valid (their ground truth holds, see the module
    doc); writes each one's pair file and capture directory. Returns (valid cases, dropped cases)."""
    from torchtv_capture.capture import capture_loaded_pair
    from torchtv_capture.cli import write_dir
    from torchtv_capture.pairfile import load_pair
    valid, dropped = [], []
    for case in stream:
        if len(valid) >= count:
            break
        path = os.path.join(out_dir, case.name + ".py")
        with open(path, "w") as f:
            f.write(case.text)
        case.path = path
        case.capture = path[:-3] + ".capture"
        case.valid, case.why = True, ""
        try:
            pair = load_pair(path)
            gap, case.eager_bitwise = ground_truth(pair)
        except Exception as e:   # a rewrite that breaks the code (a shape) is the generator's miss
            case.valid, case.why = False, "does not run: %s" % str(e).splitlines()[0][:100]
            dropped.append(case)
            continue
        if case.bug and not gap > 1e-8:
            case.valid, case.why = False, "mutation without effect (float64 gap %.1e)" % gap
        elif not case.bug and not gap < 1e-9:
            case.valid, case.why = False, "rewrite changes values (float64 gap %.1e): generator bug" % gap
        if not case.valid:
            dropped.append(case)
            os.remove(path)
            continue
        valid.append(case)
        try:
            write_dir(capture_loaded_pair(pair), case.capture, True)
        except Exception as e:
            case.capture, case.capture_error = None, str(e).splitlines()[0][:200]
    return valid, dropped


# ---- deciding and judging -----------------------------------------------------------------------

def decide(torchtv, case, timeout, extra=()):
    if case.capture is None:
        return {"verdict": "error", "level": None, "reason": "capture failed: " + case.capture_error}, 0.0
    t0 = time.time()
    proc = subprocess.run([torchtv, "check", case.capture, "--format", "json", "--timeout", str(timeout), *extra],
                          capture_output=True, text=True, env=dict(os.environ, TORCHTV_CACHE="off"))
    dt = time.time() - t0
    try:
        r = json.loads(proc.stdout)
        reason = r.get("reason", "")
        for o in r.get("outputs", []):     # the first undecided output says why
            if o.get("verdict") == r["verdict"] != "equivalent" and o.get("reason"):
                reason = "%s: %s" % (o.get("name"), o["reason"])
                break
        return {"verdict": r["verdict"], "level": r.get("level"), "reason": reason}, dt
    except (ValueError, KeyError):
        return {"verdict": "error", "level": None, "reason": "exit %d: %s" % (proc.returncode, proc.stderr[-300:])}, dt


def judge(case):
    """(outcome, failure message or None). outcome: proven, proven_weaker, refuted, unknown, error."""
    v, lv = case.result["verdict"], case.result["level"]
    if v == "error":
        return "error", "torchtv error: " + case.result["reason"]
    if case.bug:
        if v == "equivalent":
            return "unsound", "UNSOUND: a bug (%s) proven equivalent" % case.bug
        return ("refuted" if v == "not_equivalent" else "unknown"), None
    if v == "not_equivalent":
        return "unsound", "UNSOUND: a %s-preserving rewrite refuted" % case.level
    if v == "unknown":
        return "unknown", None
    if lv == "rounded":
        # Equal over the reals only up to constants rounded from one real, or a narrowing cast
        # (Note [Equivalence up to rounding]): weaker than the rewrite's level, never unsound.
        return "proven_weaker", None
    if case.level == "bitwise" and lv == "real":
        # A rewrite tagged bitwise whose float32 eager runs differ in some bit is not bitwise in
        # PyTorch's kernels on these values (a copy changed a memory layout, and a reduction over
        # it accumulates in another order): real is the right level then.
        return ("proven" if not case.eager_bitwise else "proven_weaker"), None
    if lv == "bitwise" and not case.eager_bitwise:
        return "unsound", "UNSOUND: proven bitwise, but the float32 runs differ in some bit"
    return "proven", None


def run(cases, torchtv, jobs, timeout):
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        todo = list(cases)
        for case, (res, dt) in zip(todo, pool.map(lambda c: decide(torchtv, c, timeout), todo)):
            case.result, case.seconds = res, dt
            case.outcome, case.failure = judge(case)


def campaign(torchtv, seed, count, sources, seeds=None, out=None, jobs=2, timeout=20, classes=None):
    """Generates, validates, captures and decides `count` cases. Returns (cases, dropped)."""
    out = out or tempfile.mkdtemp(prefix="torchtv-metamorphic-")
    os.makedirs(out, exist_ok=True)
    cases, dropped = capture_all(candidates(seed, sources, seeds, classes=classes), count, out)
    run(cases, torchtv, jobs, timeout)
    return cases, dropped


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--count", type=int, default=12)
    ap.add_argument("--sizes", default="small", help="bench transformer sizes among the seeds: small,real")
    ap.add_argument("--seeds", default="", help="only these seed pairs (comma-separated names)")
    ap.add_argument("--classes", default="", help="only these rewrite and mutation classes (comma-separated)")
    ap.add_argument("--out", help="keep the generated pairs here (default: a temporary directory)")
    ap.add_argument("--timeout", type=float, default=20)
    ap.add_argument("-j", "--jobs", type=int, default=2)
    ap.add_argument("--json", help="write every case and its outcome to this file")
    ap.add_argument("--list", action="store_true", help="only generate and print the cases")
    args = ap.parse_args(argv)

    sources = seed_sources([s for s in args.sizes.split(",") if s])
    seeds = [s for s in args.seeds.split(",") if s] or None
    classes = set(c for c in args.classes.split(",") if c) or None
    if args.list:
        for _, c in zip(range(args.count), candidates(args.seed, sources, seeds, classes=classes)):
            print(c.name, c.rewrites, c.bug or "", c.level or "")
        return 0
    cases, dropped = campaign(args.torchtv, args.seed, args.count, sources, seeds, args.out, args.jobs, args.timeout,
                              classes)
    for c in dropped:
        print("dropped %s: %s" % (c.name, c.why))
    failures = 0
    for c in cases:
        line = "%-12s %s (%s%s) %.1f s" % (c.outcome, c.name, c.result["verdict"],
                                          " " + c.result["level"] if c.result["level"] else "", c.seconds)
        print(line)
        if c.outcome == "unknown":
            print("    gap: " + c.result["reason"][:300])
        if c.failure:
            failures += 1
            print("    FAIL: %s\n    pair file: %s\n    reason: %s" % (c.failure, c.path, c.result["reason"][:600]))
    if args.json:
        with open(args.json, "w") as f:
            json.dump([c.summary() for c in cases], f, indent=1, default=str)
    counts = {}
    for c in cases:
        counts[c.outcome] = counts.get(c.outcome, 0) + 1
    print("%d cases (%d generated ones dropped): %s; %d soundness or error failures"
          % (len(cases), len(dropped), ", ".join("%s %d" % kv for kv in sorted(counts.items())), failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
