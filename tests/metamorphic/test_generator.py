"""The metamorphic generator's own tests (tools/metamorphic, issue 18): generation is deterministic
by seed, every rewrite of the catalog produces code that parses, and the judgement calls every
unsound verdict a failure (so that metamorphic/fixed-seeds can fail)."""
import ast
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(REPO, "tools", "metamorphic"))

import metamorphic  # noqa: E402


def case(**kw):
    c = metamorphic.Case(bug=None, level="real", eager_bitwise=False)
    c.__dict__.update(kw)
    return c


class Generator(unittest.TestCase):
    def setUp(self):
        self.sources = metamorphic.seed_sources(["small"])

    def test_deterministic_by_seed(self):
        a = [c.text for _, c in zip(range(8), metamorphic.candidates("t1", self.sources))]
        b = [c.text for _, c in zip(range(8), metamorphic.candidates("t1", self.sources))]
        c = [c.text for _, c in zip(range(8), metamorphic.candidates("t2", self.sources))]
        self.assertEqual(a, b)
        self.assertNotEqual(a, c)

    def test_generated_files_parse_and_say_what_they_are(self):
        for _, c in zip(range(40), metamorphic.candidates("t3", self.sources)):
            ast.parse(c.text)
            self.assertIn("# seed pair: %s" % c.seed, c.text)
            self.assertTrue(c.bug or c.level in ("bitwise", "real"))


class RealisticDims(unittest.TestCase):
    def test_every_real_seed_is_the_small_seed_captured_shape_only(self):
        sources = metamorphic.seed_sources(["real"])
        for name, shapes in metamorphic.REAL_SHAPES.items():
            text = sources[name + "_real"]
            self.assertEqual(metamorphic.size_of(name + "_real"), "real")
            self.assertIn("def small_inputs", text)
            self.assertIn(repr(shapes), text)

    def test_a_real_seed_loads_as_a_shape_only_pair(self):
        # integer targets: the meta tensors keep the small inputs' dtypes
        import tempfile
        sys.path.insert(0, os.path.join(REPO, "src", "capture"))
        from torchtv_capture.pairfile import load_pair
        text = metamorphic.seed_sources(["real"])["xent_int_train_real"]
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "xent_int_train_real.py")
            with open(path, "w") as f:
                f.write(text)
            pair = load_pair(path)
        self.assertTrue(pair.fake)
        self.assertEqual([tuple(t.shape) for t in pair.example_inputs], metamorphic.REAL_SHAPES["xent_int_train"])
        self.assertEqual([t.dtype for t in pair.example_inputs], [t.dtype for t in pair.small_inputs])
        self.assertEqual([t.device.type for t in pair.small_inputs], ["cpu", "cpu"])


class Judgement(unittest.TestCase):
    def test_unsound_verdicts_fail(self):
        bug = case(bug="nudge_constant@production#0", result={"verdict": "equivalent", "level": "real"})
        self.assertEqual(metamorphic.judge(bug)[0], "unsound")
        refuted = case(level="bitwise", result={"verdict": "not_equivalent", "level": None})
        self.assertEqual(metamorphic.judge(refuted)[0], "unsound")
        too_strong = case(level="real", result={"verdict": "equivalent", "level": "bitwise"})
        self.assertEqual(metamorphic.judge(too_strong)[0], "unsound")
        # a rewrite tagged bitwise whose float32 runs differ: a bitwise claim is false there too
        layout = case(level="bitwise", result={"verdict": "equivalent", "level": "bitwise"})
        self.assertEqual(metamorphic.judge(layout)[0], "unsound")
        error = case(result={"verdict": "error", "level": None, "reason": "x"})
        self.assertIsNotNone(metamorphic.judge(error)[1])

    def test_sound_verdicts_pass(self):
        for c, want in ((case(bug="b", result={"verdict": "not_equivalent", "level": None}), "refuted"),
                        (case(bug="b", result={"verdict": "unknown", "level": None}), "unknown"),
                        (case(level="real", result={"verdict": "equivalent", "level": "real"}), "proven"),
                        (case(level="bitwise", eager_bitwise=True, result={"verdict": "equivalent", "level": "real"}),
                         "proven_weaker"),
                        # tagged bitwise, but the float32 runs differ (a memory layout changed a
                        # reduction's order): real is the right level
                        (case(level="bitwise", result={"verdict": "equivalent", "level": "real"}), "proven"),
                        (case(level="real", eager_bitwise=True, result={"verdict": "equivalent", "level": "bitwise"}),
                         "proven")):
            outcome, failure = metamorphic.judge(c)
            self.assertEqual(outcome, want)
            self.assertIsNone(failure)


if __name__ == "__main__":
    unittest.main()
