"""Values computed from the inputs are never frozen into a captured graph as constants
(Note [Nothing computed from the inputs is frozen], src/capture/torchtv_capture/frozen.py).

Run from the repository root:  /usr/bin/python3 -m unittest discover -s tests/capture
"""
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
PAIRS = os.path.join(HERE, "pairs")
sys.path.insert(0, os.path.join(REPO, "src", "capture"))

import torch  # noqa: E402

from torchtv_capture import capture  # noqa: E402
from torchtv_capture.errors import CaptureError, UserFiles  # noqa: E402
from torchtv_capture.frozen import tensor_base  # noqa: E402
from torchtv_capture.locations import LocationRecorder  # noqa: E402
from torchtv_capture.tracing import run_make_fx  # noqa: E402

TABLE = torch.tensor([0.5, -1.0, 2.0])  # a constant of the code itself, not computed from inputs


class _Pair:
    path = os.path.abspath(__file__)
    user_files = UserFiles([path])


def trace(fn, *inputs):
    return run_make_fx(fn, inputs, "production", _Pair, LocationRecorder(_Pair.user_files))


def constants(gm):
    return [n.target for n in gm.graph.nodes if n.op == "get_attr"]


def line_of(path, text):
    with open(path) as f:
        return next(i + 1 for i, l in enumerate(f) if text in l)


class TracedThrough(unittest.TestCase):
    """What only wraps a value keeps the value's data flow: the graph follows the inputs."""

    def assert_follows_inputs(self, fn, *shapes):
        gm = trace(fn, *(torch.randn(s) for s in shapes))
        self.assertEqual(constants(gm), [])
        other = [torch.randn(s) for s in shapes]
        self.assertTrue(torch.allclose(gm(*other), fn(*other), rtol=0, atol=0, equal_nan=True))

    def test_parameter(self):
        self.assert_follows_inputs(lambda x: torch.nn.Parameter(x * 2) * 3, (3,))
        self.assert_follows_inputs(lambda x: torch.nn.Parameter(x, requires_grad=False) * 3, (3,))

    def test_make_subclass(self):
        self.assert_follows_inputs(lambda x: torch.Tensor._make_subclass(torch.Tensor, x * 2) * 3, (3,))

    def test_data_read(self):
        self.assert_follows_inputs(lambda x: (x * 2).data * 3, (3,))

    def test_fuse_conv_bn_weights(self):
        from torch.nn.utils.fusion import fuse_conv_bn_weights

        def fold(w, b, mean, var, gamma, beta):
            return fuse_conv_bn_weights(w, b, mean, var, 1e-5, gamma, beta)[0]
        self.assert_follows_inputs(fold, (4, 3, 3, 3), (4,), (4,), (4,), (4,), (4,))

    def test_parameter_in_functionalized_trace(self):
        def fn(x):
            y = x.clone()
            y.mul_(2)  # an in-place update: traced again under functionalization
            return torch.nn.Parameter(y) * 3
        self.assert_follows_inputs(fn, (3,))

    def test_parameter_stays_a_leaf_in_the_joint_graph(self):
        # The code's gradient does not flow through a Parameter (a leaf); the graph's does not
        # either, and its forward follows w.
        def joint(x, w):
            loss = (x * torch.nn.Parameter(w * 2)).sum()
            gx, gw = torch.autograd.grad(loss, (x, w), allow_unused=True)
            return loss, gx, torch.zeros_like(w) if gw is None else gw
        x, w = torch.randn(3, requires_grad=True), torch.randn(3, requires_grad=True)
        gm = trace(joint, x, w)
        self.assertEqual(constants(gm), [])
        x2, w2 = torch.randn(3), torch.randn(3)
        loss, gx, gw = gm(x2, w2)
        self.assertTrue(torch.equal(gx, w2 * 2))
        self.assertTrue(torch.equal(gw, torch.zeros(3)))


class NotComputedFromInputs(unittest.TestCase):
    """Reading values that do not depend on the inputs freezes nothing the inputs change."""

    def test_constants_of_the_code_are_read(self):
        gm = trace(lambda x: x * torch.tensor(TABLE.tolist()) + torch.arange(3).numpy()[1], torch.randn(3))
        y = torch.randn(3)
        self.assertTrue(torch.equal(gm(y), y * TABLE + 1))

    def test_patches_are_removed(self):
        with self.assertRaises(CaptureError):
            trace(lambda x: torch.tensor(x.tolist()), torch.randn(3))
        self.assertNotIn("data", torch.Tensor.__dict__)
        self.assertNotIn("_make_subclass", torch.Tensor.__dict__)
        for name in ("tolist", "numpy", "item"):
            self.assertIs(getattr(torch.Tensor, name), getattr(tensor_base(), name))


class Refused(unittest.TestCase):
    """Every other read of a value computed from the inputs is a capture error at its line."""

    def assert_refused(self, fn, text, *shapes):
        with self.assertRaises(CaptureError) as cm:
            trace(fn, *(torch.randn(s) for s in shapes))
        self.assertIn(text, cm.exception.message)
        self.assertIn("torchtv cannot decide code whose graph does not follow its inputs", cm.exception.message)
        self.assertEqual(cm.exception.file, _Pair.path)
        return cm.exception

    def test_reads(self):
        err = self.assert_refused(lambda x: torch.tensor((x * 2).tolist()), "Tensor.tolist()", (3,))
        self.assertEqual(err.line, line_of(__file__, "torch.tensor((x * 2).tolist())"))
        self.assert_refused(lambda x: torch.from_numpy(x.numpy()), "Tensor.numpy()", (3,))
        self.assert_refused(lambda x: x * x.sum().item(), "Tensor.item()", (3,))
        import numpy as np
        self.assert_refused(lambda x: torch.as_tensor(np.asarray(x + 1)), "Tensor.numpy()", (3,))

    def test_data_assignment(self):
        def fn(x):
            p = torch.nn.Parameter(torch.zeros(3))
            p.data = x * 2
            return p * 3
        err = self.assert_refused(fn, "to `.data`", (3,))
        self.assertEqual(err.line, line_of(__file__, "p.data = x * 2"))


class PairFiles(unittest.TestCase):
    """The pair files of tests/capture/pairs (their verdicts: `torchtv verify`, capture/pairs)."""

    def test_conv_bn_folds_keep_their_data_flow(self):
        # conv_bn_fold_modules also builds a BatchNorm2d, whose num_batches_tracked
        # (torch.tensor(0)) is a constant of the code: only Parameters must not be frozen.
        for name in ("conv_bn_fold", "conv_bn_fold_modules"):
            with self.subTest(pair=name):
                graphs = capture.capture_pair(os.path.join(PAIRS, name + ".py"))["graphs"]
                nodes = graphs["production"]["nodes"]
                frozen = [n["outputs"][0]["name"] for n in nodes if n["op"] == "prim::constant"
                          and n["outputs"][0]["name"].startswith("_param_constant")]
                self.assertEqual(frozen, [])
                self.assertIn("aten::rsqrt", [n["op"] for n in nodes])  # the fold, from the inputs

    def test_refused_pairs_name_the_line(self):
        for name, text in (("bad_frozen_tolist", "torch.tensor(amax.tolist())"),
                           ("bad_frozen_numpy", "(x > 0).numpy()"),
                           ("bad_frozen_item", "x.norm().item()"),
                           ("bad_frozen_data_assign", "linear.weight.data =")):
            path = os.path.join(PAIRS, name + ".py")
            with self.subTest(pair=name), self.assertRaises(CaptureError) as cm:
                capture.capture_pair(path)
            err = cm.exception
            self.assertEqual((err.file, err.line), (path, line_of(path, text)))
            self.assertIn(text, err.message)


if __name__ == "__main__":
    unittest.main()
