"""Small torch.export archives that record in-place updates (Note [pt2 input mutations]),
written by hand in the layout torch >= 2.6 saves (<name>/models/model.json, schema 8.x) and
in the form torch.export gives them: mutation outputs first, their `arg` a TensorArgument.
No torch is needed; run_import_e2e.py writes them into its temporary folder.

    square              y = x * x
    square_mutates      y = x * x, then x.add_(1)                  (user_input_mutation)
    running_a           batch-norm-like running mean: r = 0.9 r + 0.1 mean(x, 0); returns x - mean
    running_b           the same, the sum written the other way round
    running_bad         momentum 0.2 instead of 0.1 (a planted bug in the buffer update only)
    running_stray       a buffer_mutation naming a buffer the program does not have
    inplace_traced      y = x * x; y.add_(1); return y * 2      (Note [In-place ops in .pt2 programs]:
                        the traced form keeps add_, and `y` read after it is the updated tensor)
    inplace_functional  the same, functional: (x * x + 1) * 2
    inplace_stale       a planted bug: (x * x) * 2, what reading `y` before the update gives
    inplace_view_read   v = y.view(2, 2); y.add_(1); return v * 2 (a view of the modified tensor read after)
    copy_into_empty     b = empty([4]); b.copy_(x * x); b.add_(1); return b * 2      (copy_ and add_ as a
                        decomposed program spells them: = inplace_functional)
    copy_into_empty_bad a planted bug: b.copy_(x) instead of x * x
    zero_fill           w = x * 3; w.zero_(); w.add_(x * x); f = empty([4]); f.fill_(1); w.add_(f);
                        return w * 2                                            (= inplace_functional)
"""
import json
import os
import zipfile

F32 = 7  # torch/_export/serde/schema.py ScalarType.FLOAT


def tensor(name):
    return {"as_tensor": {"name": name}}


def meta(shape):
    return {"dtype": F32, "sizes": [{"as_int": d} for d in shape], "layout": 7}


def node(target, out, *args):
    return {"target": "torch.ops.aten." + target,
            "inputs": [{"name": n, "arg": a, "kind": 1} for n, a in args],
            "outputs": [tensor(out)], "name": out}


def program(inputs, input_specs, nodes, outputs, output_specs, shapes):
    return {"schema_version": {"major": 8, "minor": 17},
            "graph_module": {"graph": {"inputs": [tensor(i) for i in inputs],
                                       "outputs": [tensor(o) for o in outputs],
                                       "nodes": nodes,
                                       "tensor_values": {k: meta(v) for k, v in shapes.items()}},
                             "signature": {"input_specs": input_specs, "output_specs": output_specs}}}


def square(mutates):
    nodes = [node("mul.Tensor", "mul", ("self", tensor("x")), ("other", tensor("x")))]
    outputs, specs = ["mul"], [{"user_output": {"arg": tensor("mul")}}]
    if mutates:
        nodes.append(node("add.Tensor", "add", ("self", tensor("x")), ("other", {"as_int": 1})))
        outputs.insert(0, "add")
        specs.insert(0, {"user_input_mutation": {"arg": {"name": "add"}, "user_input_name": "x"}})
    return program(["x"], [{"user_input": {"arg": tensor("x")}}], nodes, outputs, specs,
                   {"x": [4], "mul": [4], "add": [4]})


def running(momentum, swapped=False, buffer_name="running_mean"):
    nodes = [
        node("mean.dim", "mean", ("self", tensor("x")), ("dim", {"as_ints": [0]})),
        node("mul.Tensor", "mul", ("self", tensor("b_running_mean")), ("other", {"as_float": 1 - momentum})),
        node("mul.Tensor", "mul_1", ("self", tensor("mean")), ("other", {"as_float": momentum})),
        node("add.Tensor", "add", ("self", tensor("mul_1" if swapped else "mul")),
             ("other", tensor("mul" if swapped else "mul_1"))),
        node("sub.Tensor", "sub", ("self", tensor("x")), ("other", tensor("mean"))),
    ]
    specs = [{"buffer_mutation": {"arg": {"name": "add"}, "buffer_name": buffer_name}},
             {"user_output": {"arg": tensor("sub")}}]
    inputs = [{"buffer": {"arg": {"name": "b_running_mean"}, "buffer_name": "running_mean", "persistent": True}},
              {"user_input": {"arg": tensor("x")}}]
    return program(["b_running_mean", "x"], inputs, nodes, ["add", "sub"], specs,
                   {"b_running_mean": [4], "x": [3, 4], "mean": [4], "mul": [4], "mul_1": [4],
                    "add": [4], "sub": [3, 4]})


def inplace(form):
    shapes = {"x": [4], "y": [4], "add_": [4], "add": [4], "out": [4], "v": [2, 2]}
    nodes = [node("mul.Tensor", "y", ("self", tensor("x")), ("other", tensor("x")))]
    if form == "view_read":
        nodes.append(node("view.default", "v", ("self", tensor("y")), ("size", {"as_ints": [2, 2]})))
        shapes["out"] = [2, 2]
    if form in ("traced", "view_read"):
        nodes.append(node("add_.Tensor", "add_", ("self", tensor("y")), ("other", {"as_int": 1})))
    elif form == "functional":
        nodes.append(node("add.Tensor", "add", ("self", tensor("y")), ("other", {"as_int": 1})))
    read = {"traced": "y", "functional": "add", "stale": "y", "view_read": "v"}[form]
    nodes.append(node("mul.Tensor", "out", ("self", tensor(read)), ("other", {"as_int": 2})))
    return program(["x"], [{"user_input": {"arg": tensor("x")}}], nodes, ["out"],
                   [{"user_output": {"arg": tensor("out")}}], shapes)


def empty(out, size):
    return node("empty.memory_format", out, ("size", {"as_ints": size}))


def copy_into_empty(src):
    shapes = {"x": [4], "y": [4], "b": [4], "copy_": [4], "add_": [4], "out": [4]}
    nodes = [node("mul.Tensor", "y", ("self", tensor("x")), ("other", tensor("x"))),
             empty("b", [4]),
             node("copy_.default", "copy_", ("self", tensor("b")), ("src", tensor(src))),
             node("add_.Tensor", "add_", ("self", tensor("b")), ("other", {"as_int": 1})),
             node("mul.Tensor", "out", ("self", tensor("b")), ("other", {"as_int": 2}))]
    return program(["x"], [{"user_input": {"arg": tensor("x")}}], nodes, ["out"],
                   [{"user_output": {"arg": tensor("out")}}], shapes)


def zero_fill():
    shapes = {"x": [4], "y": [4], "w": [4], "zero_": [4], "add_": [4], "f": [4], "fill_": [4], "add__1": [4],
              "out": [4]}
    nodes = [node("mul.Tensor", "y", ("self", tensor("x")), ("other", tensor("x"))),
             node("mul.Tensor", "w", ("self", tensor("x")), ("other", {"as_int": 3})),
             node("zero_.default", "zero_", ("self", tensor("w"))),
             node("add_.Tensor", "add_", ("self", tensor("zero_")), ("other", tensor("y"))),
             empty("f", [4]),
             node("fill_.Scalar", "fill_", ("self", tensor("f")), ("value", {"as_int": 1})),
             node("add_.Tensor", "add__1", ("self", tensor("w")), ("other", tensor("fill_"))),
             node("mul.Tensor", "out", ("self", tensor("w")), ("other", {"as_int": 2}))]
    return program(["x"], [{"user_input": {"arg": tensor("x")}}], nodes, ["out"],
                   [{"user_output": {"arg": tensor("out")}}], shapes)


ARCHIVES = {
    "copy_into_empty": copy_into_empty("y"),
    "copy_into_empty_bad": copy_into_empty("x"),
    "zero_fill": zero_fill(),
    "inplace_traced": inplace("traced"),
    "inplace_functional": inplace("functional"),
    "inplace_stale": inplace("stale"),
    "inplace_view_read": inplace("view_read"),
    "square": square(False),
    "square_mutates": square(True),
    "running_a": running(0.1),
    "running_b": running(0.1, swapped=True),
    "running_bad": running(0.2),
    "running_stray": running(0.1, buffer_name="bn.running_var"),
}


def write_archives(out):
    """Writes NAME.pt2 for each archive above into `out`; returns {name: path}."""
    paths = {}
    for name, prog in ARCHIVES.items():
        path = os.path.join(out, name + ".pt2")
        with zipfile.ZipFile(path, "w") as z:
            z.writestr(name + "/models/model.json", json.dumps(prog))
            z.writestr(name + "/archive_format", "pt2")
        paths[name] = path
    return paths
