"""Issue 34: float64 evidence only from float64 runs (precision.py), and a refutation run through
the code (code_runs.py), in-process."""
import json
import os
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
CAPTURE_SRC = os.path.normpath(os.path.join(HERE, "..", "..", "src", "capture"))
PAIRS = os.path.join(HERE, "pairs")
if CAPTURE_SRC not in sys.path:
    sys.path.insert(0, CAPTURE_SRC)

import torch  # noqa: E402

from torchtv_capture.capture import capture_pair  # noqa: E402
from torchtv_capture.code_runs import run_code  # noqa: E402
from torchtv_capture.errors import UserFiles  # noqa: E402
from torchtv_capture.pairfile import load_pair, pair_from_objects  # noqa: E402
from torchtv_capture.precision import BelowFloat64  # noqa: E402


def pair_path(name):
    return os.path.join(PAIRS, name + ".py")


def upcast_softmax(x):
    return torch.softmax(x, -1, dtype=torch.float32).to(x.dtype)


def plain_softmax(x):
    return torch.softmax(x, -1)


def shifted(x):
    return x * 0.1 + 1e-3


def scaled(x):
    return x * 0.1


def raises(x):
    raise RuntimeError("production fails here")


def request(values, index=None, type_="f32[2,2]"):
    return {"inputs": [{"name": "x", "type": type_, "values": values}],
            "outputs": [{"name": "out", "position": 0, "index": index}]}


def objects(reference, production):
    return pair_from_objects(reference, production, (torch.randn(2, 2),))


class Float64EvidenceTest(unittest.TestCase):
    """Note [Float64 evidence only from float64 runs]."""

    def test_mode_names_the_op_that_ran_below_float64_and_its_line(self):
        mode = BelowFloat64(UserFiles([__file__]))
        with mode:
            upcast_softmax(torch.randn(3, 4, dtype=torch.float64))
        op, dtype, where = mode.first
        self.assertEqual((op, dtype), ("aten::_softmax", "float32"))  # not the cast before it
        self.assertRegex(where, r"^test_code_runs\.py:\d+$")

    def test_mode_sees_nothing_in_float64_code(self):
        mode = BelowFloat64(UserFiles([__file__]))
        with mode:
            x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
            torch.autograd.grad((plain_softmax(x) + torch.zeros(4)).sum(), [x])
        self.assertIsNone(mode.first)  # zeros in float32 hold exact values

    def test_mode_sees_backward_ops(self):
        mode = BelowFloat64(UserFiles([__file__]))
        x = torch.randn(3, 4, dtype=torch.float64, requires_grad=True)
        y = x.float()
        with mode:
            torch.autograd.grad(y.exp().sum(), [x])
        self.assertIsNotNone(mode.first)

    def test_deliberate_float32_is_never_read_as_beyond_rounding(self):
        # Megatron's cross entropy computes in float32 on purpose: the float64 runs of main
        # (before issue 34) read its rounding as "beyond rounding".
        for name in ("megatron_vocab_parallel_cross_entropy", "megatron_vocab_parallel_cross_entropy_smoothing",
                     "fla_chunk_linear_attention"):
            with self.subTest(pair=name):
                record = capture_pair(pair_path(name))["capture"]["eager_check"]
                self.assertTrue(record["ran"], record)
                for o in record["outputs"]:
                    self.assertIsNone(o["beyond_rounding"], o)
                    self.assertIn("ran in float32: the float64 runs cannot separate rounding", o["inconclusive"])
                    self.assertRegex(o["inconclusive"], r"aten::\w+ at \w+\.py:\d+")

    def test_float64_code_still_refutes(self):
        record = capture_pair(pair_path("traced_differs_from_eager__value"))["capture"]["eager_check"]
        self.assertTrue(record["outputs"][0]["beyond_rounding"])


class CodeRunsTest(unittest.TestCase):
    """Note [A refutation reproduces on the code]."""

    def reply(self, reference, production, req):
        out = run_code(objects(reference, production), req)
        self.assertTrue(out["ran"], out)
        self.assertEqual(len(out["outputs"]), 1)
        return out["outputs"][0]

    def test_a_difference_beyond_the_codes_precision_shows(self):
        o = self.reply(scaled, shifted, request([1, 2, 3, 4], [0, 1]))
        self.assertTrue(o["shows"], o)
        self.assertEqual(o["index"], [0, 1])

    def test_equal_code_does_not_show(self):
        o = self.reply(scaled, lambda x: x / 10.0, request([1, 2, 3, 4], [0, 1]))
        self.assertFalse(o["shows"], o)
        self.assertIn("agree at element [0, 1]", o["how"])

    def test_nan_against_finite_shows(self):
        o = self.reply(scaled, lambda x: torch.where(x > 3, x * float("nan"), x * 0.1), request([1, 2, 3, 4]))
        self.assertTrue(o["shows"], o)
        self.assertEqual(o["index"], [1, 1])

    def test_production_raising_shows_and_reference_raising_does_not(self):
        self.assertTrue(self.reply(scaled, raises, request([1, 2, 3, 4]))["shows"])
        o = self.reply(raises, scaled, request([1, 2, 3, 4]))
        self.assertFalse(o["shows"])
        self.assertIn("outside its domain", o["how"])

    def test_small_difference_shown_by_float64_runs(self):
        # 1e-6 relative is within float32's sqrt(eps) margin, but float64 runs see it
        o = self.reply(scaled, lambda x: x * (0.1 + 1e-7), request([1, 2, 3, 4]))
        self.assertTrue(o["shows"], o)
        self.assertIn("in float64 the outputs still differ", o["how"])

    def test_inputs_keep_their_dtype(self):
        seen = []

        def record(x):
            seen.append(x.dtype)
            return x * 0.1
        self.reply(scaled, record, request([1, 2, 3, 4], type_="bf16[2,2]"))
        self.assertEqual(seen[0], torch.bfloat16)

    def test_planted_capture_is_not_the_code_through_the_cli(self):
        env = dict(os.environ, PYTHONPATH=CAPTURE_SRC)
        proc = subprocess.run([sys.executable, "-m", "torchtv_capture", pair_path("capture_is_not_the_code"),
                               "--run-code"], input=json.dumps(request([1, 2, 3, 4] * 33, [0, 1], "f32[4,33]")),
                              capture_output=True, text=True, env=env)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        out = json.loads(proc.stdout)
        self.assertEqual(out["ran"], True)
        self.assertFalse(out["outputs"][0]["shows"], out)


if __name__ == "__main__":
    unittest.main()
