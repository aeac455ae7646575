"""The `_foreach_*` list ops in the capture (Note [Foreach ops as per-tensor ops] in
src/capture/torchtv_capture/foreach.py) and values read out of tensors a function creates (Note
[Values read from tensors the function creates]). In-process: run from the repository root with
/usr/bin/python3 -m unittest discover -s tests/capture."""
import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "capture"))

import torch  # noqa: E402
from torch.fx.experimental.proxy_tensor import make_fx  # noqa: E402

from torchtv_capture.capture import capture_pair  # noqa: E402
from torchtv_capture.export import mutation_problem  # noqa: E402
from torchtv_capture.foreach import unrolled_call  # noqa: E402

OPTIM = os.path.join(HERE, "optim")


def _ops(graph_json):
    return {n["op"] for n in graph_json["nodes"]}


def _lists(seed=0):
    torch.manual_seed(seed)
    return ([torch.randn(3), torch.randn(2, 2)], [torch.randn(3), torch.randn(2, 2)],
            [torch.rand(3) + 0.5, torch.rand(2, 2) + 0.5])


class UnrolledCallsTest(unittest.TestCase):
    """Each list op's per-tensor calls compute what the list op computes, bit for bit (CPU)."""

    CASES = [
        ("_foreach_add", lambda a, b, c: ((a, b), {"alpha": 0.3})),
        ("_foreach_add", lambda a, b, c: ((a, 1.5), {})),
        ("_foreach_add", lambda a, b, c: ((a, [1.5, -2.0]), {})),
        ("_foreach_sub", lambda a, b, c: ((a, b), {"alpha": 0.7})),
        ("_foreach_mul", lambda a, b, c: ((a, b), {})),
        ("_foreach_mul", lambda a, b, c: ((a, 0.9), {})),
        ("_foreach_div", lambda a, b, c: ((a, c), {})),
        ("_foreach_div", lambda a, b, c: ((a, [3.0, 0.25]), {})),
        ("_foreach_addcmul", lambda a, b, c: ((a, b, c), {"value": 0.1})),
        ("_foreach_addcmul", lambda a, b, c: ((a, b, c, [0.1, -3.0]), {})),
        ("_foreach_addcdiv", lambda a, b, c: ((a, b, c), {"value": -0.01})),
        ("_foreach_addcdiv", lambda a, b, c: ((a, b, c, [0.1, -3.0]), {})),
        ("_foreach_maximum", lambda a, b, c: ((a, b), {})),
        ("_foreach_sqrt", lambda a, b, c: ((c,), {})),
        ("_foreach_neg", lambda a, b, c: ((a,), {})),
        ("_foreach_exp", lambda a, b, c: ((a,), {})),
        ("_foreach_abs", lambda a, b, c: ((a,), {})),
        ("_foreach_reciprocal", lambda a, b, c: ((c,), {})),
        ("_foreach_norm", lambda a, b, c: ((a,), {})),
    ]

    def test_functional_and_in_place_forms_match_the_list_ops(self):
        for name, make in self.CASES:
            for inplace in (False, True):
                op = name + ("_" if inplace else "")
                if not hasattr(torch, op):
                    continue
                with self.subTest(op=op, args=make(*_lists())[1]):
                    args, kwargs = make(*_lists())
                    expect_args, _ = make(*_lists())
                    got = unrolled_call(op, args, kwargs)
                    want = getattr(torch, op)(*expect_args, **kwargs)
                    if inplace:
                        self.assertIsNone(got)
                        got, want = args[0], expect_args[0]
                    self.assertEqual(len(got), len(want))
                    for g, w in zip(got, want):
                        self.assertTrue(torch.equal(g, w), (op, g, w))

    def test_lists_of_different_lengths_are_an_error(self):
        from torchtv_capture.errors import CaptureError
        a, b, _ = _lists()
        with self.assertRaises(CaptureError):
            unrolled_call("_foreach_add", (a, b[:1]), {})


class MutationCheckTest(unittest.TestCase):
    def test_a_list_op_updating_a_tensor_read_later_is_a_problem(self):
        # A plain make_fx trace keeps the list op as one node: the check must see the tensors of
        # its list argument (it looked at plain tensor arguments only).
        def f(x, y):
            a, b = x * 2, y * 2
            torch._foreach_add_([a, b], 1.0)
            return a + b, x * 2

        gm = make_fx(f)(torch.randn(3), torch.randn(3))
        if not any("_foreach_add_" in str(n.target) for n in gm.graph.nodes):
            self.skipTest("this torch does not keep _foreach_add_ in a plain trace")
        problem = mutation_problem(gm)
        self.assertIsNotNone(problem)
        self.assertIn("_foreach_add_", problem[0])


# The pair files of tests/capture/optim call torch 1.13's step functions (their signatures and
# their differences changed in 2.x).
TORCH_1 = torch.__version__.startswith("1.")


class OptimizerCaptureTest(unittest.TestCase):
    @unittest.skipUnless(TORCH_1, "tests/capture/optim holds torch 1.13's optimizer steps")
    def test_foreach_step_is_captured_as_per_tensor_ops_with_its_reads_reported(self):
        result = capture_pair(os.path.join(OPTIM, "adam.py"))
        graphs = result["graphs"]
        for side in ("reference", "production"):
            self.assertFalse([op for op in _ops(graphs[side]) if "_foreach_" in op], side)
        self.assertTrue(any(op.startswith("aten::addcdiv") for op in _ops(graphs["production"])))
        warnings = result["capture"]["warnings"]
        self.assertTrue(any("production() reads the value 4.0 out of a tensor it creates" in w
                            for w in warnings), warnings)

    @unittest.skipUnless(TORCH_1, "tests/capture/optim holds torch 1.13's optimizer steps")
    def test_gradients_a_foreach_step_overwrites_are_input_updates(self):
        result = capture_pair(os.path.join(OPTIM, "sgd_nesterov.py"))
        self.assertEqual(result["capture"]["input_mutations"], {"reference": [], "production": ["g0", "g1"]})
        outputs = [o["name"] for o in result["graphs"]["production"]["outputs"]]
        self.assertIn("g0__updated", outputs)

    def test_shape_only_capture_of_list_ops(self):
        # Meta tensors: the list ops have no Meta kernel, their per-tensor ops do.
        src = textwrap.dedent('''
            import torch

            def example_inputs():
                return (torch.empty(64, 32, device="meta"), torch.empty(64, 32, device="meta"))

            def reference(p, g):
                return p - 0.1 * g, g * 0.9

            def production(p, g):
                ps, bufs = [p.clone()], [g.clone()]
                torch._foreach_mul_(bufs, 0.9)
                torch._foreach_add_(ps, [g], alpha=-0.1)
                return ps[0], bufs[0]
            ''')
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "foreach_meta.py")
            with open(path, "w") as f:
                f.write(src)
            result = capture_pair(path)
        prod = result["graphs"]["production"]
        self.assertFalse([op for op in _ops(prod) if "_foreach_" in op])
        shapes = {o["name"]: o["shape"] for n in prod["nodes"] for o in n["outputs"]}
        self.assertEqual([shapes[o["value"]] for o in prod["outputs"]], [[64, 32], [64, 32]])


if __name__ == "__main__":
    unittest.main()
