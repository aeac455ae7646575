"""Tests of a pair's world of ranks (src/capture/torchtv_capture/world.py, docs/distributed.md):
the composition's meaning, run eagerly, and the errors a bad declaration gets.

Run from the repository root:  /usr/bin/python3 -m unittest tests.capture.test_world
"""
import os
import sys
import tempfile
import textwrap
import unittest

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(HERE)), "src", "capture"))

from torchtv_capture.errors import CaptureError  # noqa: E402
from torchtv_capture.pairfile import load_pair  # noqa: E402

DISTRIBUTED = os.path.join(HERE, "distributed")

HEADER = """
import torch
import torch.distributed as dist
"""


class WorldTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()

    def pair(self, body):
        path = os.path.join(self.tmp, "p%d.py" % len(os.listdir(self.tmp)))
        with open(path, "w") as f:
            f.write(HEADER + textwrap.dedent(body))
        return load_pair(path)

    def error(self, body):
        with self.assertRaises(CaptureError) as e:
            p = self.pair(body)
            p.production(*p.example_inputs)
        return e.exception.message

    def test_collectives_mean_their_sum_concatenation_slice_and_copy(self):
        p = self.pair("""
            WORLD_SIZE = 4
            SHARDING = {"x": ("split", 0), "out0": ("split", 0), "out3": ("split", 0)}
            def example_inputs():
                return (torch.arange(8.0),)
            def reference(x):
                return x, x, x, x
            def production(rank, world_size, x):
                s = x.clone()
                dist.all_reduce(s)                    # sum over the ranks' shards
                g = torch.empty(8)
                dist.all_gather_into_tensor(g, x)     # the whole x
                b = x.clone()
                dist.broadcast(b, src=2)              # rank 2's shard
                r = torch.empty(2)
                dist.reduce_scatter_tensor(r, torch.cat([x, x, x, x]))  # chunk rank of the sum
                return s, g, b, r
        """)
        s, g, b, r, *copies = p.production(torch.arange(8.0))
        shards = torch.arange(8.0).chunk(4)
        self.assertEqual(s.tolist(), (shards[0] + shards[1] + shards[2] + shards[3]).tolist() * 4)
        self.assertEqual(g.tolist(), list(range(8)))
        self.assertEqual(b.tolist(), [4.0, 5.0])  # replicated output: rank 0's, which holds rank 2's
        # Note [Every rank's copy of a replicated output]: ranks 1..3's copies of out1 and out2 follow
        self.assertEqual([c.tolist() for c in copies], [list(range(8))] * 3 + [[4.0, 5.0]] * 3)
        # each rank scatters cat(x_r, x_r, x_r, x_r): chunk r of the sum is the sum of the shards
        self.assertEqual(r.tolist(), (shards[0] + shards[1] + shards[2] + shards[3]).tolist() * 4)

    def test_megatron_pairs_compose_to_their_reference(self):
        for name in ("row_parallel_train_tp4", "mlp_train", "column_parallel_gather_train", "dp_linear_train"):
            p = load_pair(os.path.join(DISTRIBUTED, name + ".py"))
            inputs = p.example_inputs
            got = p.production(*(t.detach() for t in inputs))
            leaves = [t.detach().requires_grad_(t.requires_grad) for t in inputs]
            loss = p.reference(*leaves)
            want = (loss,) + torch.autograd.grad(loss, [t for t in leaves if t.requires_grad])
            for g, w in zip(got, want):
                self.assertTrue(torch.allclose(g, w, atol=1e-5), name)

    def test_split_must_divide(self):
        msg = self.error("""
            WORLD_SIZE = 3
            SHARDING = {"x": ("split", 0)}
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(rank, world_size, x): return x
        """)
        self.assertIn("does not divide it", msg)

    def test_sharding_names_inputs_and_outputs(self):
        msg = self.error("""
            WORLD_SIZE = 2
            SHARDING = {"y": "replicated"}
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(rank, world_size, x): return x
        """)
        self.assertIn("SHARDING names y, neither an input (x) nor an output (out)", msg)

    def test_production_takes_rank_and_world_size(self):
        msg = self.error("""
            WORLD_SIZE = 2
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(x): return x
        """)
        self.assertIn("production(rank, world_size, ...) is one rank's code", msg)

    def test_bad_layout(self):
        msg = self.error("""
            WORLD_SIZE = 2
            SHARDING = {"x": "sharded"}
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(rank, world_size, x): return x
        """)
        self.assertIn('must be "replicated" or ("split", DIM)', msg)

    def test_a_rank_that_returns_where_others_call_a_collective(self):
        msg = self.error("""
            WORLD_SIZE = 2
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(rank, world_size, x):
                y = x.clone()
                if rank == 1:
                    dist.all_reduce(y)
                return y
        """)
        self.assertIn("collective #1 is all_reduce on rank 1", msg)
        self.assertIn("rank 0 returns without it", msg)

    def test_other_process_groups_are_refused(self):
        msg = self.error("""
            WORLD_SIZE = 2
            def example_inputs(): return (torch.randn(4),)
            def reference(x): return x
            def production(rank, world_size, x):
                y = x.clone()
                dist.all_reduce(y, group=object())
                return y
        """)
        self.assertIn("process group other than the whole world", msg)

    def test_rank_and_world_size_queries_answer_the_simulated_rank(self):
        p = self.pair("""
            WORLD_SIZE = 2
            SHARDING = {"out": ("split", 0)}
            def example_inputs(): return (torch.zeros(1),)
            def reference(x): return x
            def production(rank, world_size, x):
                return x + dist.get_rank() * 10 + dist.get_world_size()
        """)
        self.assertEqual(p.production(torch.zeros(1)).tolist(), [2.0, 12.0])

    def test_the_collectives_are_restored(self):
        before = torch.distributed.all_reduce
        p = self.pair("""
            WORLD_SIZE = 2
            def example_inputs(): return (torch.zeros(1),)
            def reference(x): return x
            def production(rank, world_size, x):
                y = x.clone()
                dist.all_reduce(y)
                return y
        """)
        p.production(torch.zeros(1))
        self.assertIs(torch.distributed.all_reduce, before)


if __name__ == "__main__":
    unittest.main()
