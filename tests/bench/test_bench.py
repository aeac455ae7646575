"""Tests of the benchmark (bench/): the transformer pair's hand-derived backward against
autograd, the generator's pairs through the real capture, and the runner's --quick mode.

Run from the repository root: /usr/bin/python3 -m unittest discover -s tests/bench
(the binary: $TORCHTV_BIN, else build/torchtv). No timing assertions.
"""
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
BENCH = os.path.join(REPO, "bench")
TORCHTV = os.environ.get("TORCHTV_BIN") or os.path.join(REPO, "build", "torchtv")
sys.path.insert(0, BENCH)
import gen_transformer  # noqa: E402


def load_template():
    spec = importlib.util.spec_from_file_location("tvbench_template", gen_transformer.TEMPLATE)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def max_relative_error(model, layers, bug):
    """Production's outputs against autograd's (loss, *grads) in float64; the largest error of
    any output relative to that output's largest magnitude."""
    model.N_LAYERS, model.BUG = layers, bug
    inputs = [t.detach().double().requires_grad_(t.requires_grad) for t in model.example_inputs()]
    loss = model.reference(*inputs)
    want = (loss,) + torch.autograd.grad(loss, [t for t in inputs if t.requires_grad])
    with torch.no_grad():
        got = model.production(*[t.detach() for t in inputs])
    assert len(got) == len(want), (len(got), len(want))
    worst = 0.0
    for g, w in zip(got, want):
        assert g.shape == w.shape and g.dtype == w.dtype == torch.float64
        worst = max(worst, ((g - w).abs().max() / w.abs().max().clamp_min(1e-300)).item())
    return worst


class HandDerivedBackward(unittest.TestCase):
    """A wrong hand-derived backward would make every benchmark number meaningless."""

    @classmethod
    def setUpClass(cls):
        cls.model = load_template()

    def test_matches_autograd_in_float64(self):
        for layers in (1, 2):
            with self.subTest(layers=layers):
                self.assertLess(max_relative_error(self.model, layers, "none"), 1e-11)

    def test_every_planted_bug_changes_some_output(self):
        # The same check must reject each bug variant, or the bug table would list non-bugs.
        for bug in gen_transformer.BUGS:
            with self.subTest(bug=bug):
                self.assertGreater(max_relative_error(self.model, 2, bug), 1e-8)

    def test_generator_and_template_agree_on_bugs(self):
        self.assertEqual(set(self.model.BUGS) - {"none"}, set(gen_transformer.BUGS))


def capture(pair, out):
    proc = subprocess.run([TORCHTV, "capture", pair, "-o", out], capture_output=True, text=True,
                          timeout=600)
    return proc


class Generator(unittest.TestCase):
    def test_small_pair_is_capturable(self):
        with tempfile.TemporaryDirectory() as tmp:
            paths = gen_transformer.generate(tmp, ("small",), (1,), ("eps",), bug_layers=1)
            self.assertEqual(set(paths), {"transformer_small_L1", "transformer_small_L1__eps"})
            with open(paths["transformer_small_L1__eps"]) as f:
                self.assertIn("# EXPECT: not_equivalent", f.read())
            out = os.path.join(tmp, "cap")
            proc = capture(paths["transformer_small_L1"], out)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            with open(os.path.join(out, "capture.json")) as f:
                cap = json.load(f)
            self.assertEqual(cap["warnings"], [])
            self.assertEqual(sorted(cap["fusions"]), sorted(load_template().FUSIONS))
            with open(os.path.join(out, "reference.json")) as f:
                ref = json.load(f)
            with open(os.path.join(out, "production.json")) as f:
                prod = json.load(f)
            # loss, the gradients of x, of the layer's 9 weights and of the 2 final ones
            self.assertEqual(len(ref["outputs"]), 13)
            self.assertEqual([o["name"] for o in ref["outputs"]], [o["name"] for o in prod["outputs"]])
            self.assertNotIn("tvbench::rmsnorm", ref["schemas"])   # the reference is plain autograd
            self.assertIn("tvbench::attention_backward", prod["schemas"])

    def test_generation_is_deterministic(self):
        self.assertEqual(gen_transformer.render("real", 4), gen_transformer.render("real", 4))
        self.assertIn("SHAPE_ONLY = True", gen_transformer.render("real", 4))
        self.assertIn("SMALL = %r" % (gen_transformer.SMALL_DIMS["real"],), gen_transformer.render("real", 4))

    def test_small_inputs_run_the_same_model(self):
        # small_inputs() of a shape-only pair: real tensors of the same rank and requires_grad,
        # on which the (shape-polymorphic) functions run and agree with autograd
        model = load_template()
        model.N_LAYERS, model.SMALL = 2, gen_transformer.SMALL_DIMS["real"]
        model.H = gen_transformer.SIZES["real"][2]
        small = model.small_inputs()
        self.assertEqual(len(small), len(model.input_shapes()))
        self.assertEqual(small[0].shape, (model.SMALL[1], model.SMALL[0]))
        inputs = [t.detach().double().requires_grad_(t.requires_grad) for t in small]
        loss = model.reference(*inputs)
        want = (loss,) + torch.autograd.grad(loss, [t for t in inputs if t.requires_grad])
        with torch.no_grad():
            got = model.production(*[t.detach() for t in inputs])
        for g, w in zip(got, want):
            self.assertLess(((g - w).abs().max() / w.abs().max()).item(), 1e-11)
        self.assertIn("N_LAYERS = 64", gen_transformer.render("small", 64))


class RealisticDims(unittest.TestCase):
    """At D=4096, T=2048, V=32000 nothing can be evaluated: the cut points that decide the
    attention backward come from structure alone (Note [Cut points]), and planted bugs must
    still never be called equivalent."""

    def check(self, bug):
        with tempfile.TemporaryDirectory() as tmp:
            pair = os.path.join(tmp, "pair.py")
            with open(pair, "w") as f:
                f.write(gen_transformer.render("real", 2, bug))
            out = os.path.join(tmp, "cap")
            proc = capture(pair, out)
            self.assertEqual(proc.returncode, 0, proc.stderr)
            r = subprocess.run([TORCHTV, "check", out, "--format", "json", "--timeout", "600"],
                               capture_output=True, text=True, timeout=900)
            return json.loads(r.stdout)

    def test_two_layers_are_proven_through_structural_cut_points(self):
        j = self.check("none")
        self.assertEqual(j["verdict"], "equivalent", [o for o in j["outputs"] if o["verdict"] != "equivalent"])
        self.assertGreater(j["stats"]["cut_points"], 0)

    def test_planted_bugs_are_refuted_at_reduced_shapes(self):
        # Shape-only: the capture runs the functions at small_inputs() (Note [Eager cross-check]);
        # a planted bug is refuted there, the reduced shapes stated, never called equivalent. One bug
        # (the smallest difference, 1e-7 relative) keeps the suite's time down; every bug of the
        # generator at 2 and 64 layers is measured in bench/results/refutation.md.
        for bug in ("tiny_term",):
            self.assertIn(bug, gen_transformer.BUGS)
            with self.subTest(bug=bug):
                j = self.check(bug)
                self.assertEqual(j["verdict"], "not_equivalent", [o["reason"] for o in j["outputs"]][:3])
                self.assertTrue(any("at the reduced shapes of small_inputs() (x [4, 32] for [2048, 4096]"
                                    in o["reason"] for o in j["outputs"]), j["outputs"][:3])
                # Found again on the graphs captured at those shapes: shrunk (whole weights set to
                # zero) and localized at the planted line (Note [Refuting at reduced shapes]).
                cex = j["counterexample"]
                self.assertIn("whole inputs", cex["shrunk"])
                planted = [i for i, line in enumerate(gen_transformer.render("real", 2, bug).splitlines(), 1)
                           if "gwout + 1e-7 * wout" in line]
                where = (cex["first_difference"] or {}).get("production", {}).get("loc", "")
                self.assertTrue(where.endswith(":%d" % planted[0]), cex["first_difference"])


class QuickRun(unittest.TestCase):
    def test_quick_mode(self):
        with tempfile.TemporaryDirectory() as tmp:
            cmd = [sys.executable, os.path.join(BENCH, "run.py"), "--quick", "--torchtv", TORCHTV,
                   "--out", os.path.join(tmp, "out"), "--cache", os.path.join(tmp, "cache"),
                   "--pairs-dir", os.path.join(tmp, "pairs")]
            proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
            self.assertEqual(proc.returncode, 0, proc.stdout + proc.stderr)
            with open(os.path.join(tmp, "out", "results.json")) as f:
                res = json.load(f)
            (row,) = res["scaling"]
            self.assertIsNone(row["capture"]["error"])
            self.assertIn(row["decide"]["verdict"], ("equivalent", "not_equivalent", "unknown"))
            self.assertTrue(row["monolithic"]["available"], row["monolithic"])
            self.assertIn(row["monolithic"]["verdict"], ("equivalent", "not_equivalent", "unknown"))
            # soundness: a planted bug is never called equivalent
            bug = next(r for r in res["detection"] if r["truth"] == "bug")
            self.assertNotEqual(bug.get("torchtv"), "equivalent")
            self.assertEqual(row["numerical"]["status"], "ok")
            for name in ("scaling.md", "detection.md", "scaling.png"):
                self.assertTrue(os.path.getsize(os.path.join(tmp, "out", name)) > 0, name)


class Monolithic(unittest.TestCase):
    """`check --monolithic` (the baseline, Note [Monolithic baseline]) decides small pairs itself,
    without structural matching, and turns its time limit into unknown, never a verdict."""
    TRAIN = os.path.join(REPO, "tests", "golden", "prover", "train")

    def check(self, name, *extra):
        r = subprocess.run([TORCHTV, "check", os.path.join(self.TRAIN, name), "--monolithic", "--rlimit", "0",
                            "--format", "json", *extra], capture_output=True, text=True, timeout=300)
        return r.returncode, json.loads(r.stdout)

    def test_equivalent_pair_is_proven_by_whole_graph_queries(self):
        rc, j = self.check("layernorm_train.tvir", "--timeout", "120")
        self.assertEqual((rc, j["verdict"]), (0, "equivalent"), j)
        for o in j["outputs"]:
            self.assertIn("monolithic baseline: equal over the reals (Z3)", o["reason"])

    def test_planted_bug_is_refuted_and_replayed(self):
        rc, j = self.check("layernorm_train__extra_term.tvir", "--timeout", "120")
        self.assertEqual((rc, j["verdict"]), (1, "not_equivalent"), j)
        self.assertTrue(any("replayed through LibTorch" in o["reason"] for o in j["outputs"]), j)

    def test_time_limit_gives_unknown(self):
        rc, j = self.check("layernorm_train.tvir", "--timeout", "0.001")
        self.assertEqual((rc, j["verdict"]), (2, "unknown"), j)
        self.assertTrue(all(o["verdict"] == "unknown" for o in j["outputs"]), j)
        self.assertTrue(any("time limit" in o["reason"] for o in j["outputs"]), j)


class Report(unittest.TestCase):
    """The tables say why a pair was not decided, never count an unknown as a catch, and never
    print a monolithic number the CLI could not measure."""

    def results(self):
        env = {"commit": "abc1234", "dirty": False, "date": "2026-01-01 00:00", "cpus": 2, "cpu": "x",
               "python": "3", "torch": "1.13", "torchtv": "torchtv 0", "load_average": [3.5, 2.0, 1.0],
               "load_average_end": [4.0, 3.0, 2.0]}
        decide = {"seconds": 2.0, "peak_mb": 50, "verdict": "unknown", "reason": "op aten::foo: no semantics",
                  "ref_nodes": 10, "prod_nodes": 5}
        row = {"size": "real", "layers": 1, "pair": "transformer_real_L1",
               "capture": {"seconds": 1.0, "peak_mb": 100, "cached": True, "error": None},
               "decide": decide, "floor": {"seconds": 1.0, "peak_mb": 40, "stage": "normalize", "ok": True},
               "monolithic": {"available": False}, "numerical": {"status": "n/a"}}
        det = [{"pair": "p__bug", "truth": "bug", "capture_error": None, "torchtv": "unknown",
                "torchtv_reason": "solver limit: timeout after 10 s", "numerical": {"status": "ok",
                "assert_close": "fail", "bitwise": "fail"}},
               {"pair": "p", "truth": "equivalent", "capture_error": None, "torchtv": "equivalent",
                "numerical": {"status": "ok", "assert_close": "pass", "bitwise": "pass"}}]
        return {"environment": env, "quick": False, "repeat": 3, "mono_timeout": 300,
                "scaling": [row], "detection": det}

    def test_undecided_reasons_and_load_are_reported(self):
        import report
        res = self.results()
        scaling, detection = report.scaling_md(res), report.detection_md(res)
        self.assertIn("op aten::foo: no semantics", scaling)
        self.assertIn("solver limit: timeout after 10 s", detection)
        self.assertIn("3.50, 2.00, 1.00", scaling)
        self.assertIn("not implemented", scaling)
        self.assertIn("| torchtv | 0 | 0 | 1 |", detection)   # the unknown bug is no catch
        self.assertNotIn("No equivalent pair was proven", detection)

    def test_monolithic_column_says_when_the_limit_was_hit(self):
        import report
        res = self.results()
        res["scaling"][0]["monolithic"] = {"available": True, "seconds": 61.5, "peak_mb": 300, "limit": 60,
                                           "verdict": "unknown", "hit_limit": True}
        scaling = report.scaling_md(res)
        self.assertIn("61.50 s, unknown (hit the 60 s limit)", scaling)
        self.assertNotIn("not implemented", scaling)


if __name__ == "__main__":
    unittest.main()
