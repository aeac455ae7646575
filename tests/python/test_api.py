"""The Python API (torchtv.verify / assert_equivalent) from pytest, through the real binary."""
import os

import pytest
import torch

import torchtv


def example():
    torch.manual_seed(0)
    return (torch.randn(4, 8), torch.randn(8))


def scale_relu(x, w):
    return torch.relu(x * w)


def scale_relu_commuted(x, w):
    return torch.relu(w * x)


def scale_relu_wrong(x, w):
    return torch.relu(x * w + 1e-7)


def test_equivalent_functions_pass():
    result = torchtv.assert_equivalent(scale_relu, scale_relu_commuted, example())
    assert result.verdict == "equivalent"
    assert result.level == "bitwise"
    assert [o["name"] for o in result.outputs] == ["out"]


def test_example_inputs_may_be_a_function():
    assert torchtv.verify(scale_relu, scale_relu_commuted, example).equivalent


def test_planted_bug_is_never_equivalent_and_assert_raises_with_summary():
    result = torchtv.verify(scale_relu, scale_relu_wrong, example())
    assert result.verdict in ("not_equivalent", "unknown")
    with pytest.raises(AssertionError) as info:
        torchtv.assert_equivalent(scale_relu, scale_relu_wrong, example())
    text = str(info.value)
    assert "torchtv: " + result.verdict in text
    assert "production diverges at" in text
    assert "test_api.py" in text  # the source line of the diverging node


def test_capture_error_is_an_error_verdict():
    def bad(x, w):
        if x.sum() > 0:  # data-dependent control flow cannot be captured
            return x
        return w
    result = torchtv.verify(scale_relu, bad, example())
    assert result.verdict == "error"
    assert "data-dependent" in result.reason


def test_wrong_number_of_outputs_is_an_error():
    result = torchtv.verify(scale_relu, lambda x, w: (x, w), example())
    assert result.verdict == "error"


def linear_loss(x, w):
    return (x * w).sum()


def linear_loss_explicit(x, w):
    loss = (x * w).sum()
    return loss, x.sum(0)


def test_train_step_with_explicit_gradient():
    x, w = example()
    w.requires_grad_(True)
    torchtv.assert_equivalent(linear_loss, linear_loss_explicit, (x, w), mode="train_step")


def test_keep_capture_writes_a_capture_directory(tmp_path):
    out = tmp_path / "cap"
    torchtv.verify(scale_relu, scale_relu_commuted, example(), keep_capture=str(out))
    assert (out / "capture.json").is_file()
    assert (out / "reference.json").is_file()


def test_failure_message_is_a_summary_with_the_differing_element_and_report(tmp_path):
    report = tmp_path / "diff.html"
    with pytest.raises(AssertionError) as info:
        torchtv.assert_equivalent(scale_relu, scale_relu_wrong, example(), report=str(report))
    text = str(info.value)
    result = torchtv.verify(scale_relu, scale_relu_wrong, example())
    assert "1 output: " in text
    assert "report: " + str(report) in text
    assert result.verdict != "not_equivalent" or result.counterexample
    if result.counterexample:
        cex = result.counterexample
        assert "differs at %s[" % cex["output"] in text
        # the inputs are named with their types, not dumped value by value
        assert "x: f32[4,8]" in text
        # (a run of the first values: one value alone may be any number in the text, 0.0 once
        # the counterexample is shrunk)
        assert ", ".join(repr(v) for v in cex["inputs"][0]["values"][:3]) not in text
        assert len(text) < 2000


def test_verify_writes_the_report(tmp_path):
    report = tmp_path / "r.html"
    result = torchtv.verify(scale_relu, scale_relu_wrong, example(), report=str(report))
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>")
    assert "v-" + result.verdict in page
    assert result.report_path == str(report)


def rmsnorm(x, w):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-5) * w


def rmsnorm_eps(x, w):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + 1e-6) * w


def test_failure_message_names_the_first_differing_intermediate_with_its_numbers(tmp_path):
    report = tmp_path / "eps.html"
    with pytest.raises(AssertionError) as info:
        torchtv.assert_equivalent(rmsnorm, rmsnorm_eps, example(), report=str(report))
    text = str(info.value)
    result = torchtv.verify(rmsnorm, rmsnorm_eps, example())
    assert result.verdict == "not_equivalent"
    first = result.counterexample["first_difference"]
    assert first is not None
    # the eps add on each side, not the output far below it
    assert first["reference"]["op"] == first["production"]["op"] == "aten::add.Scalar"
    assert first["reference_value"] != first["production_value"]
    assert "first differing intermediate: production %%%s = aten::add.Scalar" % first["production"]["value"] in text
    assert "production %r, reference %r" % (first["production_value"], first["reference_value"]) in text
    assert "report: " + str(report) in text
    assert "First differing intermediate" in report.read_text()


def sum_keepdim(x, w):
    return (x * w).sum(-1, keepdim=True)


def sum_no_keepdim(x, w):
    return (x * w).sum(-1)


def test_output_types_differ_the_message_names_where_without_values(tmp_path):
    # Note [Localized type differences]: an all-zero input, the first differing types, no values.
    report = tmp_path / "keepdim.html"
    result = torchtv.verify(sum_keepdim, sum_no_keepdim, example(), report=str(report))
    text = result.summary()  # assert_equivalent's message
    assert result.verdict == "not_equivalent"
    cex = result.counterexample
    assert cex["reference_value"] is None and all(v == 0 for i in cex["inputs"] for v in i["values"])
    first = cex["first_difference"]
    assert first["production_value"] is None
    assert first["type_difference"] == "shape differs: production f32[4], reference f32[4,1]"
    assert "differs at out: shape differs: production f32[4], reference f32[4,1]" in text
    assert "first differing intermediate: production %%%s = aten::sum.dim_IntList" % first["production"]["value"] in text
    assert "First differing intermediate" in report.read_text()


def _being_traced():
    from torch.utils._python_dispatch import _get_current_dispatch_mode
    return type(_get_current_dispatch_mode()).__name__ == "ProxyTorchDispatchMode"


def scale_relu_traced_apart(x, w):
    """scale_relu, except under make_fx: the graph differs from the code that runs."""
    if _being_traced():
        return torch.relu(x * w + 0.5)
    return torch.relu(x * w)


def test_refutation_the_code_does_not_show_is_unknown():
    # Note [A refutation reproduces on the code]: the graphs differ, the functions do not.
    result = torchtv.verify(scale_relu, scale_relu_traced_apart, example())
    assert result.verdict == "unknown", result.summary()
    reason = result.outputs[0]["reason"]
    assert "the graphs differ on this input but the code does not" in reason
    assert "the capture is not the code that runs" in reason
    assert result.counterexample is not None  # the graphs' refutation, kept as evidence
    # Note [Evidence of undecided outputs]: what the runs of the code showed, in the message too.
    assert result.outputs[0]["runs"].startswith("the two functions agree bit for bit on"), result.outputs[0]
    assert "runs of the code: the two functions agree bit for bit" in result.summary()


def test_refutation_the_code_shows_stays_not_equivalent():
    def scale_relu_shifted(x, w):
        return torch.relu(x * w + 0.5)
    result = torchtv.verify(scale_relu, scale_relu_shifted, example())
    assert result.verdict == "not_equivalent", result.summary()
    assert "reproduced on the code" in result.outputs[0]["reason"]


# Issue 36 item 7: the API takes what the CLI takes (--fusions, --assume, --cache), and a capture
# problem is an error of the test (CaptureFailed, a TorchtvError), not a failed assertion.
FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "custom_op")
_lib = torch.library.Library("tvx", "DEF")  # the op tests/fixtures/custom_op/fusions defines
_lib.define("rmsnorm(Tensor x, Tensor w, float eps) -> Tensor")


def rmsnorm_plain(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


_lib.impl("rmsnorm", lambda x, w, eps: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps) * w, "CPU")


def rmsnorm_custom(x, w):
    return torch.ops.tvx.rmsnorm(x, w, 1e-6)


def test_capture_error_raises_capture_failed_not_assertion_error():
    def bad(x, w):
        if x.sum() > 0:
            return x
        return w
    with pytest.raises(torchtv.CaptureFailed) as info:
        torchtv.assert_equivalent(scale_relu, bad, example())
    assert not isinstance(info.value, AssertionError)
    assert isinstance(info.value, torchtv.TorchtvError)
    assert "data-dependent" in str(info.value)
    assert "test_api.py:" in info.value.result.data["error"]["location"]


def test_fusion_dir_expands_a_custom_op_through_its_definition(tmp_path):
    inputs = (torch.randn(3, 8), torch.randn(8))
    opaque = torchtv.verify(rmsnorm_plain, rmsnorm_custom, inputs, cache=False)
    assert opaque.verdict == "unknown", opaque.summary()  # the kernel is opaque without a definition
    right = torchtv.verify(rmsnorm_plain, rmsnorm_custom, inputs, cache=str(tmp_path / "c.sqlite"),
                           fusion_dir=os.path.join(FIXTURES, "fusions"))
    assert right.equivalent, right.summary()
    assert (tmp_path / "c.sqlite").exists()  # the cache asked for
    wrong = torchtv.verify(rmsnorm_plain, rmsnorm_custom, inputs, cache=False,
                           fusion_dir=os.path.join(FIXTURES, "fusions_wrong_eps"))
    assert wrong.verdict != "equivalent", wrong.summary()
    with pytest.raises(ValueError):
        torchtv.verify(rmsnorm_plain, rmsnorm_custom, inputs, fusion_dir=str(tmp_path / "none"))


def gather_rows(x, i):
    return x[i]


def gather_rows_clamped(x, i):
    return x[i.clamp(0, 3)]


def test_assume_declares_an_input_domain():
    inputs = (torch.randn(4, 3), torch.tensor([0, 3, 1]))
    result = torchtv.verify(gather_rows, gather_rows_clamped, inputs, cache=False, assume=["i in [0, 4)"])
    assert result.equivalent, result.summary()
    assert any("as you declared" in a for a in result.data["assumptions"]), result.data["assumptions"]
    with pytest.raises(ValueError):
        torchtv.verify(gather_rows, gather_rows_clamped, inputs, assume="i in [0, 4)")


def test_unknown_says_what_would_decide_it():
    # Note [What would decide it]: an op torchtv has no semantics for is named, with the definition to write.
    def first_four(x, w):
        return torch.as_strided(x * w, (4,), (1,))

    def first_four_flat(x, w):
        return (x * w).reshape(-1)[:4]
    result = torchtv.verify(first_four, first_four_flat, example())
    assert result.verdict == "unknown", result.summary()
    hint = result.outputs[0]["to_decide"]
    assert hint.startswith("a definition of aten::as_strided in terms of ops torchtv knows"), result.outputs[0]
    assert "to decide it, try: a definition of aten::as_strided" in result.summary()
