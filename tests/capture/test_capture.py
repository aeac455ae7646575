"""Tests of the Python capture package (src/capture/torchtv_capture).

Run from the repository root:  /usr/bin/python3 -m unittest discover -s tests/capture
(needs a python3 with torch, 1.13 or 2.x). Every capture runs the real CLI in a subprocess; all
of them are started at once in setUpModule to keep the suite fast.
"""
import ast
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CAPTURE_SRC = os.path.join(REPO, "src", "capture")
PAIRS = os.path.join(HERE, "pairs")

GOOD = ["layernorm_train", "layernorm_train__bias_grad", "mlp_fused_train", "train_multiline",
        "forward_ops", "inplace_alias", "output_shape_differs", "inplace_input_update"]
BAD = ["bad_missing_function", "bad_syntax", "bad_wrong_outputs", "bad_data_dependent", "bad_nothing_returned",
       "bad_fusion_disagrees"]
BAD_CLI = ["bad_syntax", "bad_data_dependent"]   # also run through the CLI (the rest in-process)

DTYPES = {"bool", "u8", "i8", "i16", "i32", "i64", "f16", "bf16", "f32", "f64"}
VALUE_KEYS = {"value", "values", "none", "bool", "int", "float", "ints", "floats", "bools",
              "dtype", "str", "device", "layout", "memory_format"}

TMP = None
RUNS = {}   # name -> (returncode, stdout, stderr, out_dir)


def pair_path(name):
    return os.path.join(PAIRS, name + ".py")


def _start(name, out_dir, extra=()):
    env = dict(os.environ)
    env["PYTHONPATH"] = CAPTURE_SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    cmd = [sys.executable, "-m", "torchtv_capture", pair_path(name)]
    if out_dir:
        cmd += ["-o", out_dir]
    cmd += list(extra)
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            cwd=REPO, universal_newlines=True)


GOOD_CLI = ["mlp_fused_train"]   # captured by a subprocess (with --emit-stdout); the rest in-process


def _run_in_process(name, out_dir):
    """cli.main() in this process; returns (rc, stdout, stderr)."""
    import contextlib
    import io
    if CAPTURE_SRC not in sys.path:
        sys.path.insert(0, CAPTURE_SRC)
    from torchtv_capture import cli
    so, se = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(so), contextlib.redirect_stderr(se):
        rc = cli.main([pair_path(name), "-o", out_dir])
    return rc, so.getvalue(), se.getvalue()


def setUpModule():
    """Starts the subprocess captures, runs the in-process ones meanwhile, then waits. Each pair
    file is loaded at most once per process (a pair may register a torch.library namespace)."""
    global TMP
    TMP = tempfile.mkdtemp(prefix="torchtv-capture-test-")
    procs = {}
    for name in GOOD_CLI + BAD_CLI:
        out = os.path.join(TMP, name)
        extra = ["--emit-stdout"] if name in GOOD_CLI else []
        procs[name] = (_start(name, out, extra), out)
    try:
        for name in GOOD:
            if name not in GOOD_CLI:
                out = os.path.join(TMP, name)
                RUNS[name] = _run_in_process(name, out) + (out,)
    finally:
        for name, (p, out) in procs.items():
            so, se = p.communicate(timeout=300)
            RUNS[name] = (p.returncode, so, se, out)


def tearDownModule():
    if TMP:
        shutil.rmtree(TMP, ignore_errors=True)


def load(name, graph="reference"):
    rc, so, se, out = RUNS[name]
    if rc != 0:
        raise AssertionError("capture of %s failed (rc=%d): %s" % (name, rc, se[-2000:]))
    with open(os.path.join(out, graph + ".json")) as f:
        return json.load(f)


def all_graphs(name):
    rc, so, se, out = RUNS[name]
    if rc != 0:
        raise AssertionError("capture of %s failed (rc=%d): %s" % (name, rc, se[-2000:]))
    with open(os.path.join(out, "capture.json")) as f:
        cap = json.load(f)
    gs = {"reference": load(name, "reference"), "production": load(name, "production")}
    for op, rel in cap["fusions"].items():
        with open(os.path.join(out, rel)) as f:
            gs[op] = json.load(f)
    return cap, gs


def schema_arg_names(schema):
    """Argument names of a schema string, in order."""
    i = schema.index("(")
    depth = 0
    for j in range(i, len(schema)):
        depth += {"(": 1, ")": -1}.get(schema[j], 0)
        if depth == 0:
            break
    names = []
    depth, cur = 0, ""
    for ch in schema[i + 1:j] + ",":
        if ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == "," and depth == 0:
            piece = cur.strip()
            cur = ""
            if piece and piece != "*":
                decl = piece.split("=")[0].strip()
                names.append(re.split(r"\s+", decl)[-1])
            continue
        cur += ch
    return names


def line_of(path, text, nth=1):
    with open(path) as f:
        hits = [i + 1 for i, l in enumerate(f) if text in l]
    return hits[nth - 1]


def func_ranges(path):
    with open(path) as f:
        tree = ast.parse(f.read())
    res = {}
    for n in tree.body:
        if isinstance(n, ast.FunctionDef):
            end = getattr(n, "end_lineno", None) or max(
                getattr(x, "lineno", n.lineno) for x in ast.walk(n))
            res[n.name] = (n.lineno, end)
    return res


def defining_file(path, fname):
    """The pair file that defines function ``fname``: ``path`` itself, or the pair beside it
    that ``path`` imports it from (``from layernorm_train import reference``)."""
    if fname in func_ranges(path):
        return path
    with open(path) as f:
        tree = ast.parse(f.read())
    for n in tree.body:
        if isinstance(n, ast.ImportFrom) and any(a.name == fname and a.asname is None for a in n.names):
            return pair_path(n.module)
    raise AssertionError("%s neither defines nor imports %s" % (path, fname))


class GraphStructureTest(unittest.TestCase):

    def check_graph(self, g, name, expect_name):
        self.assertEqual(g["format"], "torchtv-graph")
        self.assertEqual(g["version"], 1)
        self.assertEqual(g["name"], expect_name)
        self.assertEqual(g["producer"]["tool"], "torchtv_capture")
        self.assertEqual(g["producer"]["source"], pair_path(name))
        defined = set()
        for inp in g["inputs"]:
            self.assertIn(inp["dtype"], DTYPES)
            self.assertTrue(all(isinstance(d, int) for d in inp["shape"]))
            self.assertNotIn(inp["name"], defined)
            defined.add(inp["name"])
        for n in g["nodes"]:
            op = n["op"]
            self.assertNotIn("getitem", op)
            self.assertRegex(op, r"^[A-Za-z_][A-Za-z0-9_]*::[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)?$")
            self.assertFalse(op.endswith(".default"), op)
            if op != "prim::constant":
                self.assertIn(op, g["schemas"])
                self.assertEqual([a["name"] for a in n["args"]], schema_arg_names(g["schemas"][op]),
                                 "args of %s not in schema order" % op)
            for a in n["args"]:
                keys = set(a) - {"name"}
                self.assertEqual(len(keys), 1, a)
                self.assertTrue(keys <= VALUE_KEYS, a)
                if "value" in a:
                    self.assertIn(a["value"], defined, "%s uses %s before its definition" % (op, a["value"]))
                if "values" in a:
                    for v in a["values"]:
                        self.assertTrue(v is None or v in defined)
                if "dtype" in a:
                    self.assertIn(a["dtype"], DTYPES)
            for o in n["outputs"]:
                if o is None:
                    continue
                self.assertIn(o["dtype"], DTYPES)
                self.assertNotIn(o["name"], defined, "value %s defined twice" % o["name"])
                defined.add(o["name"])
            self.assertIn("loc", n)
        self.assertTrue(g["outputs"])
        for o in g["outputs"]:
            self.assertIn(o["value"], defined)
        for key in g["schemas"]:
            self.assertTrue(any(n["op"] == key for n in g["nodes"]), key)

    def test_all_good_pairs(self):
        for name in GOOD:
            with self.subTest(pair=name):
                cap, gs = all_graphs(name)
                self.assertEqual(cap["format"], "torchtv-capture")
                self.assertEqual(cap["version"], 1)
                self.assertEqual(cap["source"], pair_path(name))
                for gname, g in gs.items():
                    self.check_graph(g, name, gname)
                ref, prod = gs["reference"], gs["production"]
                self.assertEqual([o["name"] for o in ref["outputs"]], [o["name"] for o in prod["outputs"]])
                self.assertEqual(ref["inputs"], prod["inputs"])

    def test_layernorm_joint_graph(self):
        for name in ("layernorm_train", "layernorm_train__bias_grad"):
            ref = load(name, "reference")
            prod = load(name, "production")
            ops = [n["op"] for n in ref["nodes"]]
            self.assertIn("aten::native_layer_norm", ops)
            self.assertIn("aten::native_layer_norm_backward", ops)
            self.assertEqual(ref["producer"]["mode"], "train_step")
            self.assertEqual([o["name"] for o in ref["outputs"]], ["loss", "grad_x", "grad_w", "grad_b"])
            self.assertEqual([i["name"] for i in ref["inputs"]], ["x", "w", "b"])
            self.assertNotIn("aten::native_layer_norm", [n["op"] for n in prod["nodes"]])
            # native_layer_norm is one node with three outputs
            ln = [n for n in ref["nodes"] if n["op"] == "aten::native_layer_norm"][0]
            self.assertEqual([o["shape"] for o in ln["outputs"]], [[4, 8], [4, 1], [4, 1]])
            bw = [n for n in ref["nodes"] if n["op"] == "aten::native_layer_norm_backward"][0]
            self.assertEqual({a["name"]: a for a in bw["args"]}["output_mask"], {"name": "output_mask", "bools": [True, True, True]})
            self.assertEqual([o["name"] for o in ref["outputs"]][1:],
                             ["grad_x", "grad_w", "grad_b"])
            self.assertEqual([o["value"] for o in ref["outputs"]][1:], [o["name"] for o in bw["outputs"]])
            loss_node = [n for n in ref["nodes"] if n["outputs"][0] and n["outputs"][0]["name"] == ref["outputs"][0]["value"]][0]
            self.assertEqual(loss_node["outputs"][0]["shape"], [])

    def test_production_args(self):
        prod = load("layernorm_train", "production")
        mean = [n for n in prod["nodes"] if n["op"] == "aten::mean.dim"][0]
        self.assertEqual(mean["args"], [{"name": "self", "value": "x"}, {"name": "dim", "ints": [-1]},
                                        {"name": "keepdim", "bool": True}, {"name": "dtype", "none": True}])
        self.assertEqual(prod["schemas"]["aten::mean.dim"],
                         "aten::mean.dim(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor")
        # `var + EPS` is aten::add.Tensor with a wrapped-number operand
        adds = [n for n in prod["nodes"] if n["op"] == "aten::add.Tensor"
                and {"name": "other", "float": 1e-05} in n["args"]]
        self.assertEqual(len(adds), 1)

    def test_mlp_custom_op_and_fusion(self):
        cap, gs = all_graphs("mlp_fused_train")
        prod = gs["production"]
        calls = [n for n in prod["nodes"] if n["op"] == "mlpfused::bias_relu"]
        self.assertEqual(len(calls), 1)
        self.assertEqual(len(calls[0]["outputs"]), 1)
        self.assertIn("mlpfused::bias_relu", prod["schemas"])
        self.assertNotIn("aten::relu", [n["op"] for n in prod["nodes"]])
        self.assertEqual(cap["fusions"], {"mlpfused::bias_relu": "fusions/mlpfused__bias_relu.json"})
        self.assertTrue(os.path.isfile(os.path.join(RUNS["mlp_fused_train"][3], "fusions", "mlpfused__bias_relu.json")))
        fg = gs["mlpfused::bias_relu"]
        self.assertEqual([(i["name"], i["dtype"], i["shape"]) for i in fg["inputs"]],
                         [("x", "f32", [5, 10]), ("b", "f32", [10])])
        self.assertIn("aten::relu", [n["op"] for n in fg["nodes"]])
        self.assertEqual([o["name"] for o in fg["outputs"]], ["out"])
        self.assertEqual(fg["producer"]["mode"], "forward")
        self.assertEqual(fg["fusion"]["op"], "mlpfused::bias_relu")
        self.assertEqual(fg["fusion"]["graph"], "production")
        self.assertEqual(prod["nodes"][fg["fusion"]["node_index"]]["op"], "mlpfused::bias_relu")
        ref_ops = [n["op"] for n in gs["reference"]["nodes"]]
        self.assertIn("aten::threshold_backward", ref_ops)
        self.assertEqual([i["requires_grad"] for i in gs["reference"]["inputs"]], [False, True, True, True])
        self.assertEqual([o["name"] for o in gs["reference"]["outputs"]], ["loss", "grad_w1", "grad_b1", "grad_w2"])
        self.assertEqual(cap["warnings"], [])

    def test_emit_stdout_matches_files(self):
        rc, so, se, out = RUNS["mlp_fused_train"]
        self.assertEqual(rc, 0, se)
        lines = [l for l in so.splitlines() if l.strip()]
        self.assertEqual(len(lines), 1)
        obj = json.loads(lines[0])
        cap, gs = all_graphs("mlp_fused_train")
        self.assertEqual(obj["capture"], cap)
        self.assertEqual(obj["graphs"]["reference"], gs["reference"])
        self.assertEqual(obj["graphs"]["production"], gs["production"])
        self.assertEqual(obj["graphs"]["fusions"], {"mlpfused::bias_relu": gs["mlpfused::bias_relu"]})

    def test_locations(self):
        for name in GOOD:
            path = pair_path(name)
            cap, gs = all_graphs(name)
            for gname, g in gs.items():
                with self.subTest(pair=name, graph=gname):
                    # reference and production lie in the file that defines them (a planted-bug
                    # variant imports its base model's); every other graph in the pair file
                    where = defining_file(path, gname) if gname in ("reference", "production") else path
                    with open(where) as f:
                        nlines = len(f.read().splitlines())
                    locs = [n["loc"] for n in g["nodes"]]
                    self.assertTrue(all(l is not None for l in locs), "%s/%s has nodes without loc" % (name, gname))
                    for l in locs:
                        self.assertEqual(l["file"], where)
                        self.assertTrue(1 <= l["line"] <= nlines)
                    if gname in ("reference", "production"):
                        lo, hi = func_ranges(where)[gname]
                        for l in locs:
                            self.assertTrue(lo < l["line"] <= hi, l)

    def test_production_lines_exact(self):
        prod = load("layernorm_train", "production")
        path = pair_path("layernorm_train")
        rsqrt = [n for n in prod["nodes"] if n["op"] == "aten::rsqrt"][0]
        self.assertEqual(rsqrt["loc"]["line"], line_of(path, "torch.rsqrt("))
        mlp = load("mlp_fused_train", "production")
        br = [n for n in mlp["nodes"] if n["op"] == "mlpfused::bias_relu"][0]
        self.assertEqual(br["loc"]["line"], line_of(pair_path("mlp_fused_train"), "torch.ops.mlpfused.bias_relu("))

    def test_backward_locations(self):
        ref = load("train_multiline", "reference")
        path = pair_path("train_multiline")
        mm_line = line_of(path, "h = x @ w")
        tanh_line = line_of(path, "a = torch.tanh(h + b)")
        sum_line = line_of(path, "return (a * a).sum()")
        by_op = {}
        for n in ref["nodes"]:
            by_op.setdefault(n["op"], []).append(n["loc"]["line"])
        self.assertEqual(by_op["aten::tanh"], [tanh_line])
        self.assertEqual(by_op["aten::tanh_backward"], [tanh_line])
        self.assertEqual(by_op["aten::mm"], [mm_line, mm_line])   # forward mm and its backward
        self.assertEqual(by_op["aten::t"], [mm_line])
        self.assertEqual(by_op["aten::sum"], [sum_line])
        self.assertEqual(by_op["aten::expand"], [sum_line])

    def test_forward_pair(self):
        cap, gs = all_graphs("forward_ops")
        self.assertEqual(cap["mode"], "forward")
        ref, prod = gs["reference"], gs["production"]
        self.assertEqual([o["name"] for o in ref["outputs"]], ["out0", "out1", "out2"])
        self.assertEqual([i.get("requires_grad") for i in ref["inputs"]], [False, False])
        self.assertNotIn("aten::native_layer_norm_backward", [n["op"] for n in ref["nodes"]])
        consts = [n for n in prod["nodes"] if n["op"] == "prim::constant"]
        self.assertEqual(len(consts), 1)
        self.assertEqual(consts[0]["args"], [{"name": "value", "floats": [0.0, 0.0, 0.0]}])
        self.assertEqual(consts[0]["outputs"][0]["shape"], [3])
        for g in (ref, prod):
            mx = [n for n in g["nodes"] if n["op"] == "aten::max.dim"][0]
            self.assertEqual([(o["dtype"], o["shape"]) for o in mx["outputs"]], [("f32", [3]), ("i64", [3])])
            self.assertEqual(g["outputs"][2]["value"], mx["outputs"][1]["name"])


def _import_capture():
    if CAPTURE_SRC not in sys.path:
        sys.path.insert(0, CAPTURE_SRC)
    import torchtv_capture.capture
    import torchtv_capture.errors
    return torchtv_capture.capture, torchtv_capture.errors


class SoundnessTest(unittest.TestCase):
    """Issues 15 and 23: the captured graph is the code that runs."""

    def test_inplace_code_is_functionalized(self):
        prod = load("inplace_alias", "production")
        ops = [n["op"] for n in prod["nodes"]]
        self.assertIn("aten::mul.Tensor", ops)
        self.assertFalse([o for o in ops if o.split(".")[0].endswith("_")], ops)

    def test_input_update_is_an_output_of_both_graphs(self):
        rc, so, se, out = RUNS["inplace_input_update"]
        with open(os.path.join(out, "capture.json")) as f:
            cap = json.load(f)
        self.assertEqual(cap["input_mutations"], {"reference": [], "production": ["logits"]})
        ref, prod = load("inplace_input_update"), load("inplace_input_update", "production")
        self.assertEqual([o["name"] for o in ref["outputs"]], ["out", "logits__updated"])
        self.assertEqual([o["name"] for o in prod["outputs"]], ["out", "logits__updated"])
        self.assertEqual(ref["outputs"][1]["value"], "logits")      # unchanged by the reference
        self.assertNotEqual(prod["outputs"][1]["value"], "logits")  # production's updated value
        self.assertFalse([n for n in prod["nodes"] if n["op"].startswith("aten::copy_")])
        self.assertTrue(any("modifies its input 'logits'" in w for w in cap["warnings"]))

    def test_output_types_that_differ_are_captured(self):
        rc, so, se, out = RUNS["output_shape_differs"]
        with open(os.path.join(out, "capture.json")) as f:
            cap = json.load(f)
        self.assertTrue(any("f32[3, 1]" in w and "f32[3]" in w for w in cap["warnings"]), cap["warnings"])

    def test_eager_check_recorded(self):
        rc, so, se, out = RUNS["forward_ops"]
        with open(os.path.join(out, "capture.json")) as f:
            eager = json.load(f)["eager_check"]
        self.assertTrue(eager["ran"], eager)
        self.assertEqual([o["output"] for o in eager["outputs"]], ["out0", "out1", "out2"])
        for o in eager["outputs"]:
            self.assertEqual(o["draws"], 4)
            self.assertIsNone(o["beyond_rounding"], o)   # an equivalent pair: rounding at most

    def test_op_with_its_own_kernel_is_one_node(self):
        capture, _ = _import_capture()
        for op in ("silu_backward", "mish_backward"):
            with self.subTest(op=op):
                res = capture.capture_pair(pair_path(op + "_kernel"))
                ref = res["graphs"]["reference"]
                self.assertEqual([n["op"] for n in ref["nodes"]], ["aten::" + op])
                eager = res["capture"]["eager_check"]["outputs"][0]
                self.assertFalse(eager["bitwise_equal"])   # kernel and decomposition round apart
                self.assertIsNone(eager["beyond_rounding"])


class ErrorTest(unittest.TestCase):
    """Bad pair files, captured in-process; two of them also through the CLI (CliErrorTest)."""

    def error_of(self, name):
        capture, errors = _import_capture()
        with self.assertRaises(errors.CaptureError) as cm:
            capture.capture_pair(pair_path(name))
        err = cm.exception.to_json()
        self.assertEqual(set(err), {"error", "file", "line"})
        json.dumps(err, allow_nan=False)
        return err

    def test_missing_function(self):
        err = self.error_of("bad_missing_function")
        self.assertIn("production", err["error"])
        self.assertEqual(err["file"], pair_path("bad_missing_function"))
        self.assertIsNone(err["line"])

    def test_syntax_error(self):
        err = self.error_of("bad_syntax")
        self.assertIn("syntax error", err["error"])
        self.assertEqual(err["file"], pair_path("bad_syntax"))
        self.assertEqual(err["line"], line_of(pair_path("bad_syntax"), "def reference(x)"))

    def test_wrong_number_of_outputs(self):
        err = self.error_of("bad_wrong_outputs")
        self.assertIn("returns 3 tensors", err["error"])
        self.assertIn("4 outputs", err["error"])
        self.assertEqual(err["file"], pair_path("bad_wrong_outputs"))
        self.assertEqual(err["line"], line_of(pair_path("bad_wrong_outputs"), "return loss,"))

    def test_nothing_to_compare(self):
        # returning nothing is fine for a function that updates its inputs (capture/optim/sgd_in_place.py);
        # one that neither returns nor updates anything is told so, at its line
        err = self.error_of("bad_nothing_returned")
        self.assertIn("returns no tensors and modifies none of its inputs", err["error"])
        self.assertEqual(err["line"], line_of(pair_path("bad_nothing_returned"), "def reference(p, g)"))

    def test_definition_that_disagrees_with_its_kernel(self):
        # the capture runs the FUSIONS definition at the recorded call and holds it against the kernel
        err = self.error_of("bad_fusion_disagrees")
        self.assertIn("does not compute what the kernel", err["error"])
        self.assertIn("element [", err["error"])
        self.assertEqual(err["line"], line_of(pair_path("bad_fusion_disagrees"), "def bias_relu_definition"))

    def test_data_dependent_control_flow(self):
        err = self.error_of("bad_data_dependent")
        self.assertIn("data-dependent", err["error"])
        self.assertEqual(err["file"], pair_path("bad_data_dependent"))
        self.assertEqual(err["line"], line_of(pair_path("bad_data_dependent"), "if x.sum() > 0"))



class InputNamesTest(unittest.TestCase):
    """Issue 36 item 7: `def reference(x, *params)` names params[0] `params0` (and its gradient
    `grad_params0`), as the code indexes it; before, by its position among all the inputs (`params1`)."""

    def test_varargs_numbered_from_zero(self):
        if CAPTURE_SRC not in sys.path:
            sys.path.insert(0, CAPTURE_SRC)
        from torchtv_capture.pairfile import _param_names

        def reference(x, y, *params):
            return x

        self.assertEqual(_param_names(reference, 4, "reference", "f.py"), ["x", "y", "params0", "params1"])

        def clash(params0, *params):
            return params0

        self.assertEqual(_param_names(clash, 3, "reference", "f.py"), ["params0", "in1", "params1"])


class CliErrorTest(unittest.TestCase):

    def test_cli_errors(self):
        capture, errors = _import_capture()
        for name in BAD_CLI:
            with self.subTest(pair=name):
                rc, so, se, out = RUNS[name]
                self.assertEqual(rc, 3, "expected exit 3 for %s, got %d; stderr: %s" % (name, rc, se[-1000:]))
                last = [l for l in se.splitlines() if l.strip()][-1]
                err = json.loads(last)
                self.assertEqual(set(err), {"error", "file", "line"})
                self.assertEqual(err["file"], pair_path(name))
                self.assertIsInstance(err["line"], int)
                self.assertNotIn("Traceback", se)
                self.assertFalse(os.path.exists(out), "output directory written despite the error")
                self.assertEqual(so, "")
                with self.assertRaises(errors.CaptureError) as cm:
                    capture.capture_pair(pair_path(name))
                self.assertEqual(cm.exception.to_json(), err)

    def test_no_temporary_leftovers(self):
        self.assertEqual([n for n in os.listdir(TMP) if n.startswith(".")], [])

    def test_nonempty_output_dir_refused(self):
        d = os.path.join(TMP, "nonempty")
        os.makedirs(d)
        with open(os.path.join(d, "keep.txt"), "w") as f:
            f.write("x")
        p = _start("bad_syntax", d)
        so, se = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 3)
        self.assertIn("not empty", json.loads(se.strip().splitlines()[-1])["error"])
        self.assertTrue(os.path.isfile(os.path.join(d, "keep.txt")))


class EachTest(unittest.TestCase):
    """--each (Note [Capturing each file]): one Python, a forked child per pair file, so a pair
    file's global changes never reach the next one; errors and a limit per file."""

    def test_each(self):
        d = os.path.join(TMP, "each")
        os.makedirs(d)
        leaky = os.path.join(d, "leaky.py")
        with open(leaky, "w") as f:   # changes torch's global state at import
            f.write("import torch\ntorch.set_default_dtype(torch.float64)\n\n\ndef example_inputs():\n"
                    "    return (torch.randn(3),)\n\n\ndef reference(x):\n    return x * 2\n\n\n"
                    "def production(x):\n    return x + x\n")
        sleepy = os.path.join(d, "sleepy.py")
        with open(sleepy, "w") as f:
            f.write("import time\ntime.sleep(60)\n")
        env = dict(os.environ)
        env["PYTHONPATH"] = CAPTURE_SRC
        out = os.path.join(d, "out")
        pairs = [leaky, pair_path("forward_ops"), pair_path("bad_syntax"), sleepy]
        p = subprocess.run([sys.executable, "-m", "torchtv_capture", *pairs, "--each", out, "--each-timeout", "15"],
                           capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
        self.assertEqual(p.returncode, 3, p.stderr)
        self.assertEqual(sorted(os.listdir(out)), ["0.err", "0.json", "1.err", "1.json", "2.err", "3.err"])
        with open(os.path.join(out, "1.json")) as f:
            each = json.load(f)
        single = subprocess.run([sys.executable, "-m", "torchtv_capture", pair_path("forward_ops"), "--emit-stdout"],
                                capture_output=True, text=True, env=env, cwd=REPO, timeout=300)
        self.assertEqual(each, json.loads(single.stdout))   # f64 from leaky.py did not leak into it
        errors = []
        for k in (2, 3):
            with open(os.path.join(out, "%d.err" % k)) as f:
                errors.append(json.loads(f.read().strip().splitlines()[-1]))
        self.assertEqual((errors[0]["file"], errors[0]["line"]), (pair_path("bad_syntax"), 9))
        self.assertIn("syntax error", errors[0]["error"])
        self.assertEqual(errors[1], {"error": "the capture took longer than 15 s", "file": sleepy, "line": 0})


class EagerComparisonTest(unittest.TestCase):
    """The eager check's comparisons (Note [Comparisons in one pass]) against their plain
    formulations, on the values the bit-level shortcuts could get wrong."""

    @classmethod
    def setUpClass(cls):
        if CAPTURE_SRC not in sys.path:
            sys.path.insert(0, CAPTURE_SRC)
        import torch
        from torchtv_capture import eager
        cls.torch, cls.eager = torch, eager

    def pairs(self, dtype):
        torch = self.torch
        inf, nan = float("inf"), float("nan")
        fi = torch.finfo(dtype)
        a = torch.tensor([0.0, -0.0, 1.0, nan, nan, inf, -inf, 2.0, fi.tiny / 4, fi.max, 3.0, 1.0 - fi.eps / 2, 7.0],
                         dtype=dtype)
        b = torch.tensor([-0.0, -0.0, 1.0, nan, 1.0, inf, inf, 2.0000005, fi.tiny / 2, -fi.max, 3.0, 1.0, 7.0],
                         dtype=dtype)
        # another NaN payload: the same as a NaN for the comparison
        if dtype == torch.float32:
            b[3] = torch.tensor([0x7fc00001], dtype=torch.int32).view(torch.float32)[0]
        yield a, b
        yield a[[2, 3, 10, 12]], b[[2, 3, 10, 12]]           # only NaNs and equal values
        g = torch.Generator().manual_seed(0)
        x = torch.randn(40, 3, generator=g, dtype=torch.float64)
        yield x.to(dtype), (x * (1 + 1e-3 * torch.randn(40, 3, generator=g, dtype=torch.float64))).to(dtype)
        yield x.to(dtype).t(), x.to(dtype).t().clone()       # not contiguous, equal

    def plain(self, a, b):
        torch = self.torch
        fa, fb = a.double().reshape(-1), b.double().reshape(-1)
        bad = ~((torch.isnan(fa) & torch.isnan(fb)) | ((fa == fb) & (torch.signbit(fa) == torch.signbit(fb))))
        if not bad.any():
            return None
        finite = torch.isfinite(fa) & torch.isfinite(fb)
        scale = torch.maximum(fa.abs(), fb.abs()).clamp(min=torch.finfo(a.dtype).tiny)
        # 2 ** floor(log2(scale)) with the exponent from frexp: log2 rounds up just below a power of
        # two in float64 (log2 of the largest double is 1024.0), which the eager check does not
        _, exp = torch.frexp(scale)
        ulp = torch.pow(2.0, (exp - 1).double()) * torch.finfo(a.dtype).eps
        ulps = float(((fa - fb).abs() / ulp)[finite].max()) if finite.any() else 0.0
        i = int(bad.nonzero()[0])
        return i, float(fa[i]), float(fb[i]), int(bad.sum()), ulps

    def test_same_as_plain(self):
        e, torch = self.eager, self.torch
        for dtype in (torch.float32, torch.float64, torch.bfloat16, torch.float16):
            for a, b in self.pairs(dtype):
                want = self.plain(a, b)
                self.assertEqual(e._bits_equal(a, b), want is None, (dtype, a, b))
                if want is None:
                    continue
                index, rv, pv, n = e._first_difference(a, b, e._differ_mask(a, b))
                flat = 0
                for i, d in zip(index, a.shape):
                    flat = flat * d + i
                got = (flat, rv, pv, n, e._ulps(a, b))
                self.assertEqual(repr(got), repr(want), dtype)

    def test_beyond_rounding_finite_mask(self):
        e, torch = self.eager, self.torch
        inf, nan = float("inf"), float("nan")
        r = torch.tensor([1.0, inf, 2.0, nan], dtype=torch.float64)
        p = torch.tensor([1.0, inf, 2.5, nan], dtype=torch.float64)
        w = e._beyond_rounding(r, p, r.float(), p.float())
        self.assertIsNotNone(w)
        self.assertIn("element [2]", w)        # the finite difference, not the infinities
        self.assertIsNone(e._beyond_rounding(r[:2], p[:2], r[:2].float(), p[:2].float()))
        self.assertIn("element [1]", e._beyond_rounding(r[:2], torch.tensor([1.0, nan], dtype=torch.float64),
                                                      r[:2].float(), p[:2].float()))


class EagerCheckMemoryTest(unittest.TestCase):
    """Note [The eager check's memory]: the check keeps no run's inputs beyond the run and holds
    one draw's outputs at a time; seen with weak references to the tensors, not by measuring."""

    def test_one_draw_at_a_time(self):
        _import_capture()
        import weakref
        import torch
        from torchtv_capture import eager, pairfile
        pair = pairfile.load_pair(pair_path("rmsnorm_train"))
        runs_inputs, kept_outputs, reference_runs, seen = [], [], [], []

        def watched(fn, is_reference):
            def run(*args):
                # said after the check: an exception here would be the check's "ran": false
                if any(r() is not None for r in runs_inputs):
                    seen.append("a run's inputs outlive it")
                if is_reference and args[0].dtype == torch.float32:
                    reference_runs.append(1)
                    # a new draw (the first two runs: the determinism check)
                    if len(reference_runs) > 2 and any(r() is not None for r in kept_outputs):
                        seen.append("an earlier draw's outputs are alive when the next draw runs")
                runs_inputs.extend(weakref.ref(a) for a in args)
                return fn(*args)
            return run

        detached = eager._detached

        def kept(outputs):
            outputs = detached(outputs)
            kept_outputs.extend(weakref.ref(t) for t in outputs)
            return outputs

        pair.reference, pair.production = watched(pair.reference, True), watched(pair.production, False)
        eager._detached = kept
        try:
            record = eager.eager_check(pair, ["loss", "grad_x", "grad_w"])
        finally:
            eager._detached = detached
        self.assertTrue(record["ran"], record)
        self.assertEqual(sorted(set(seen)), [])
        self.assertEqual(len(reference_runs), 1 + 1 + len(eager.SEEDS))   # the test saw every draw
        self.assertEqual([o["draws"] for o in record["outputs"]], [4, 4, 4])


class ValuesTest(unittest.TestCase):
    """In-process checks of the argument encoding."""

    @classmethod
    def setUpClass(cls):
        if CAPTURE_SRC not in sys.path:
            sys.path.insert(0, CAPTURE_SRC)
        import torch  # noqa: F401
        from torchtv_capture import values
        cls.torch = torch
        cls.values = values

    def enc(self, op, args, kwargs=None):
        v = self.values
        return [dict(name=sp.name, **v.encode_value(sp, val, lambda n: n, "t"))
                for sp, val in v.bind_args(op, args, kwargs or {})]

    def test_canonical_names(self):
        aten = self.torch.ops.aten
        cn = self.values.canonical_name
        self.assertEqual(cn(aten.relu.default), "aten::relu")
        self.assertEqual(cn(aten.add.Tensor), "aten::add.Tensor")
        self.assertEqual(cn(aten.native_layer_norm.default), "aten::native_layer_norm")

    def test_defaults_and_enums(self):
        aten = self.torch.ops.aten
        self.assertEqual(self.enc(aten.contiguous.default, ["x"]),
                         [{"name": "self", "value": "x"},
                          {"name": "memory_format", "memory_format": "contiguous_format"}])
        e = self.enc(aten.clamp.default, ["x"], {"min": float("-inf"), "max": float("nan")})
        self.assertEqual(e[1:], [{"name": "min", "float": "-inf"}, {"name": "max", "float": "nan"}])
        e = self.enc(aten.mean.dim, ["x", [-1]], {"dtype": self.torch.float64})
        self.assertEqual(e[-1], {"name": "dtype", "dtype": "f64"})

    def test_int_list_broadcast(self):
        aten = self.torch.ops.aten
        sch = [sp for sp in self.values.parse_schema(aten.max_pool2d.default)]
        names = [sp.name for sp in sch]
        self.assertEqual(names[:3], ["self", "kernel_size", "stride"])
        ks = sch[1]
        self.assertEqual(self.values.encode_value(ks, 3, None, "t"), {"ints": [3, 3]})

    def test_complex_dtypes_named_but_their_data_refused(self):
        from torchtv_capture.errors import CaptureError
        self.assertEqual(self.values.dtype_name(self.torch.complex64), "c64")
        self.assertEqual(self.values.dtype_name(self.torch.complex128), "c128")
        with self.assertRaises(CaptureError) as e:
            self.values.data_dtype_name(self.torch.complex64, "this input")
        self.assertIn("view_as_real", e.exception.message)
        with self.assertRaises(CaptureError):
            self.values.dtype_name(self.torch.complex32)


class TracingShortcutsTest(unittest.TestCase):
    """The capture's shortcuts give torch's own answers: node names (Note [Node names while
    tracing]) and the dtypes and shapes make_fx recorded (Note [Metadata make_fx recorded])."""

    @classmethod
    def setUpClass(cls):
        if CAPTURE_SRC not in sys.path:
            sys.path.insert(0, CAPTURE_SRC)
        import torch
        cls.torch = torch

    def test_node_names_are_torchs(self):
        import random
        import torch.fx.graph as fx_graph
        from torchtv_capture import fxnames
        bases = ["mm", "mm_1", "mm_3", "t", "x_0", "x_07", "max", "sum", "if", "torch", "inf", "1x",
                 "a.b", "getitem", "getitem_2"]
        rng = random.Random(7)
        picks = [(rng.choice(bases), rng.choice([None, None, max, object()])) for _ in range(3000)]
        theirs, ours = fx_graph._Namespace(), fx_graph._Namespace()
        expected = [theirs.create_name(c, o) for c, o in picks]
        with fxnames.fast_node_names():
            got = [ours.create_name(c, o) for c, o in picks]
        self.assertEqual(got, expected)
        if fxnames._APPLIES:   # torch 1.13: the shortcut was taken
            self.assertIn(fxnames._KNOWN, ours.__dict__)

    def test_recorded_metadata_is_what_running_the_graph_gives(self):
        from torch.fx.experimental.proxy_tensor import make_fx
        from torchtv_capture import export
        torch = self.torch
        aten = torch.ops.aten

        def f(x, w, b):
            y, mean, rstd = aten.native_layer_norm(x, [4], w, b, 1e-5)
            gx, gw, gb = aten.native_layer_norm_backward(y, x, [4], mean, rstd, w, b, mask)
            a, c = torch.split(y, [1, 2], dim=0)
            m, i = torch.max(c, dim=1)
            return gx + torch.tensor([1.0, 2.0, 3.0, 4.0]), gb, a, m, i

        inputs = (torch.randn(3, 4), torch.randn(4), torch.randn(4))
        mask = [True, True, True]
        gm = make_fx(f)(*inputs)
        traced = export.traced_metas(gm)
        rerun, _ = export.node_metas(gm, inputs, "t")
        self.assertEqual(traced, {n: m for n, m in rerun.items() if n.op != "output"})
        self.assertEqual(len([m for m in traced.values() if isinstance(m, list)]), 4)
        # torch 1.13's real-tensor trace keeps no values: a watched call's arguments need the run
        # again; torch 2.x records fake values, which must describe what the run gives
        # (Note [Fusion arguments recorded as fake tensors] in capture.py)
        kept = export.traced_calls(gm, lambda op: "k" if op is aten.native_layer_norm.default else None)
        if kept is not None:
            rerun_calls = export.node_metas(gm, inputs, "t", lambda op: "k" if op is aten.native_layer_norm.default
                                            else None)[1]
            self.assertEqual(len(kept["k"]), 1)
            self.assertEqual([export._describe(list(a)) for _, a, _, _ in kept["k"]],
                             [export._describe(list(a)) for _, a, _, _ in rerun_calls["k"]])
        # an absent (None) element is not told by what make_fx recorded: run again
        mask[1] = False
        self.assertIsNone(export.traced_metas(make_fx(f)(*inputs)))
        # under a fake tensor mode the values are recorded: the calls of a watched op as a run gives
        from torch._subclasses.fake_tensor import FakeTensorMode
        mask[1] = True
        mode = FakeTensorMode()

        def watch(op):
            return "k" if op in (aten.native_layer_norm.default, aten.max.dim) else None

        def described(calls):
            return {k: [(n, export._describe(list(a)), sorted(kw), export._describe(r)) for n, a, kw, r in v]
                    for k, v in calls.items()}
        with mode:
            fake = tuple(mode.from_tensor(t) for t in inputs)
            gm = make_fx(f)(*fake)
            traced = export.traced_calls(gm, watch)
            self.assertEqual(len(traced["k"]), 2)
            self.assertEqual(described(traced), described(export.node_metas(gm, fake, "t", watch)[1]))


if __name__ == "__main__":
    unittest.main()
