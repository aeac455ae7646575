"""Shape-only capture (meta example inputs traced with fake tensors; torchtv_capture/fake.py).

Run from the repository root:  /usr/bin/python3 -m unittest discover -s tests/capture
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CAPTURE_SRC = os.path.join(REPO, "src", "capture")
PAIRS = os.path.join(HERE, "fake_pairs")
GIB = 2 ** 30
TORCHTV = os.environ.get("TORCHTV_BIN") or os.path.join(REPO, "build", "torchtv")


def run_capture(name, out):
    """(returncode, stderr, peak resident KB of the capture process)."""
    env = dict(os.environ, PYTHONPATH=CAPTURE_SRC)
    with tempfile.TemporaryFile() as err:
        proc = subprocess.Popen([sys.executable, "-m", "torchtv_capture", os.path.join(PAIRS, name + ".py"),
                                 "-o", out], stdout=subprocess.DEVNULL, stderr=err, env=env, cwd=REPO)
        _, status, usage = os.wait4(proc.pid, 0)
        err.seek(0)
        return os.waitstatus_to_exitcode(status), err.read().decode(), usage.ru_maxrss


def last_json(stderr):
    return json.loads(stderr.strip().splitlines()[-1])


class CaptureTestCase(unittest.TestCase):
    """One temporary folder per test class for the captures it writes."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="torchtv-fake-test-")

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)


class ShapeOnlyCapture(CaptureTestCase):
    def test_huge_inputs_are_not_allocated(self):
        out = os.path.join(self.tmp, "huge")
        rc, stderr, peak_kb = run_capture("huge_matmul", out)
        self.assertEqual(rc, 0, stderr)
        # each input is 16 GiB as a real tensor; the capture must stay far below one of them
        self.assertLess(peak_kb * 1024, 2 * GIB)
        with open(os.path.join(out, "reference.json")) as f:
            ref = json.load(f)
        with open(os.path.join(out, "production.json")) as f:
            prod = json.load(f)
        self.assertEqual([i["shape"] for i in ref["inputs"]], [[65536, 65536]] * 2)
        self.assertEqual([o["name"] for o in prod["outputs"]], ["loss", "grad_w"])
        ones = [n for n in prod["nodes"] if n["op"] == "aten::ones"]
        self.assertEqual(len(ones), 1)
        device = [a for a in ones[0]["args"] if a["name"] == "device"][0]
        self.assertEqual(device["device"], "cpu")   # fake tensors claim the CPU, not "meta"
        with open(os.path.join(out, "capture.json")) as f:
            self.assertEqual(json.load(f)["fusions"], {"fakepair::scale": "fusions/fakepair__scale.json"})
        with open(os.path.join(out, "fusions", "fakepair__scale.json")) as f:
            self.assertEqual(json.load(f)["inputs"][0]["shape"], [65536, 65536])

    def test_custom_op_without_meta_kernel_is_named(self):
        rc, stderr, _ = run_capture("no_meta_kernel", os.path.join(self.tmp, "nometa"))
        self.assertEqual(rc, 3, stderr)
        err = last_json(stderr)
        self.assertIn("fakepair_nometa::twice", err["error"])
        self.assertIn("needs a 'Meta' kernel", err["error"])

    def test_mixed_meta_and_real_inputs_are_refused(self):
        rc, stderr, _ = run_capture("mixed_devices", os.path.join(self.tmp, "mixed"))
        self.assertEqual(rc, 3, stderr)
        err = last_json(stderr)
        self.assertIn("example_inputs()[1] is on device cpu but other inputs are meta tensors", err["error"])
        self.assertTrue(err["file"].endswith("mixed_devices.py"))


class RefutedAtReducedShapes(CaptureTestCase):
    """A shape-only pair runs at its small_inputs() (Note [Eager cross-check]): a planted bug the
    graphs leave undecided is refuted there, the reduced shapes stated."""

    def test_eager_check_runs_small_inputs(self):
        out = os.path.join(self.tmp, "cumsum")
        rc, stderr, _ = run_capture("cumsum_matmul__exclusive", out)
        self.assertEqual(rc, 0, stderr)
        with open(os.path.join(out, "capture.json")) as f:
            capture = json.load(f)
        eager = capture["eager_check"]
        self.assertTrue(eager["ran"], eager)
        self.assertTrue(eager["reduced_shapes"])
        self.assertIn("x [4, 8] for [4096, 4096]", eager["inputs"])
        self.assertIsNotNone(eager["outputs"][0]["beyond_rounding"])
        # Note [Refuted before the shape-only capture]: refuted by the runs, so captured at the
        # shapes of small_inputs() only, and the capture says so.
        self.assertTrue(capture.get("reduced_only"), capture)
        self.assertNotIn("reduced", capture)
        with open(os.path.join(out, capture["reference"])) as f:
            self.assertIn("[4,8]", json.dumps(json.load(f)).replace(" ", ""))

    def test_without_small_inputs_the_warning_says_so(self):
        out = os.path.join(self.tmp, "huge_nosmall")
        rc, stderr, _ = run_capture("huge_matmul", out)
        self.assertEqual(rc, 0, stderr)
        with open(os.path.join(out, "capture.json")) as f:
            capture = json.load(f)
        self.assertFalse(capture["eager_check"]["ran"])
        self.assertIn("gives no small_inputs()", capture["eager_check"]["why"])

    @unittest.skipUnless(os.path.exists(TORCHTV), "no torchtv binary at %s" % TORCHTV)
    def test_verify_refutes_at_reduced_shapes(self):
        env = dict(os.environ, PYTHONPATH=CAPTURE_SRC)
        proc = subprocess.run([TORCHTV, "verify", os.path.join(PAIRS, "cumsum_matmul__exclusive.py"),
                               "--format", "json"], capture_output=True, text=True, env=env, cwd=REPO)
        res = json.loads(proc.stdout)
        self.assertEqual(res["verdict"], "not_equivalent", proc.stdout)
        self.assertIn("at the reduced shapes of small_inputs() (x [4, 8] for [4096, 4096])",
                      res["outputs"][0]["reason"])

    @unittest.skipUnless(os.path.exists(TORCHTV), "no torchtv binary at %s" % TORCHTV)
    def test_counterexample_is_shrunk_and_localized_at_reduced_shapes(self):
        """Note [Refuting at reduced shapes]: the runs' counterexample is replaced by one found on
        the pair captured again at small_inputs()' shapes: shrunk, with its inputs at those
        shapes, and localized at the planted line (also the output's "diverges at")."""
        pair = os.path.join(PAIRS, "tanh_mlp__scale.py")
        env = dict(os.environ, PYTHONPATH=CAPTURE_SRC)
        proc = subprocess.run([TORCHTV, "verify", pair, "--format", "json", "--no-cache"],
                              capture_output=True, text=True, env=env, cwd=REPO)
        res = json.loads(proc.stdout)
        self.assertEqual(res["verdict"], "not_equivalent", proc.stdout)
        cex = res["counterexample"]
        self.assertIn("at the reduced shapes of small_inputs() (x [4, 8] for [4096, 4096]", cex["note"])
        self.assertIn("), where the pair was captured (its runs there refute it)", cex["note"])
        self.assertTrue(cex["shrunk"].startswith("shrunk:"), cex)
        self.assertEqual([t["type"] for t in cex["inputs"]], ["f32[4,8]", "f32[8,8]"])
        with open(pair) as f:
            planted = next(i for i, line in enumerate(f, 1) if "the planted bug" in line)
        where = cex["first_difference"]["production"]["loc"]
        self.assertTrue(where.endswith("tanh_mlp__scale.py:%d" % planted), cex["first_difference"])
        self.assertEqual(res["outputs"][0]["production_site"], cex["first_difference"]["production"])


if __name__ == "__main__":
    unittest.main()
