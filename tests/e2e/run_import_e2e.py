#!/usr/bin/env python3
"""End-to-end tests of the TorchScript and .pt2 importers through the real CLI.

Each case runs `torchtv check` (or `show`) and checks the exit code and, for
errors, a piece of the message. Bad files (truncated, random bytes, wrong
extension) are made in a temporary folder from the committed fixtures.
Usage: run_import_e2e.py --torchtv build/torchtv --fixtures tests/fixtures
"""
import argparse
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from pt2_mutations import write_archives

EQUIVALENT, NOT_EQUIVALENT, UNKNOWN, ERROR = 0, 1, 2, 3


def cases(fx, tmp):
    mlp, rms, soft = "--inputs=f32[3,8]", "--inputs=f32[2,16]", "--inputs=f32[3,4]"
    yield "mlp: 1.13 script = 1.13 trace", ["check", f"{fx}/t113/mlp.script.pt", f"{fx}/t113/mlp.trace.pt", mlp], EQUIVALENT, ""
    yield "mlp: 1.13 script = 2.11 script", ["check", f"{fx}/t113/mlp.script.pt", f"{fx}/t211/mlp.script.pt", mlp], EQUIVALENT, ""
    yield "mlp: 1.13 script = 2.11 trace", ["check", f"{fx}/t113/mlp.script.pt", f"{fx}/t211/mlp.trace.pt", mlp], EQUIVALENT, ""
    yield "mlp: 1.13 script = 2.11 .pt2", ["check", f"{fx}/t113/mlp.script.pt", f"{fx}/t211/mlp.pt2", mlp], EQUIVALENT, ""
    yield "mlp: 1.13 script = older .pt2 layout", ["check", f"{fx}/t113/mlp.script.pt", f"{fx}/old_layout/mlp.pt2", mlp], EQUIVALENT, ""
    # A .pt2 calling a user kernel (torch.library.custom_op) against the model written out:
    # expanded through --fusions like a pair file's FUSIONS (tools/corpus/export_custom_op.py).
    co = f"{fx}/custom_op"
    pair = ["check", f"{co}/rmsnorm_custom_op.pt2", f"{co}/rmsnorm_plain.pt2"]
    yield "custom op .pt2 = plain, with its definition", pair + [f"--fusions={co}/fusions"], EQUIVALENT, ""
    yield "custom op .pt2: a definition with the wrong eps", pair + [f"--fusions={co}/fusions_wrong_eps"], NOT_EQUIVALENT, ""
    yield "custom op .pt2 without a definition", pair, UNKNOWN, "tvx::rmsnorm"
    # CPU flash attention called with an additive mask (and its backward) against attention written
    # out, through fusions/inductor's masked definitions (tools/corpus/export_masked_attention.py).
    am, ind = f"{fx}/attention_mask", f"--fusions={os.path.dirname(os.path.dirname(os.path.abspath(fx)))}/fusions/inductor"
    yield "masked flash attention .pt2 = plain", ["check", f"{am}/plain_addmask.pt2", f"{am}/flash_addmask.pt2", ind], EQUIVALENT, ""
    yield "masked flash attention forward + backward .pt2 = plain", ["check", f"{am}/plain_addmask_train.pt2", f"{am}/flash_addmask_train.pt2", ind], EQUIVALENT, ""
    yield "masked flash attention with a wrong scale", ["check", f"{am}/plain_addmask.pt2", f"{am}/flash_addmask__scale.pt2", ind], NOT_EQUIVALENT, ""
    yield "mlp: dynamic .pt2 = itself", ["check", f"{fx}/t211/mlp.dynamic.pt2", f"{fx}/t211/mlp.dynamic.pt2"], EQUIVALENT, ""
    yield "softmax: 1.13 script = 2.11 .pt2 (lifted constant)", ["check", f"{fx}/t113/softmax.script.pt", f"{fx}/t211/softmax.pt2", soft], EQUIVALENT, ""
    yield "softmax: 1.13 script = 2.11 trace", ["check", f"{fx}/t113/softmax.script.pt", f"{fx}/t211/softmax.trace.pt", soft], EQUIVALENT, ""
    yield "rmsnorm: 1.13 script = 2.11 script", ["check", f"{fx}/t113/rmsnorm.script.pt", f"{fx}/t211/rmsnorm.script.pt", rms], EQUIVALENT, ""
    # Spelled differently: torch.export records layer_norm with cudnn_enable=False, TorchScript
    # with True, a hint for CUDA only; layer_norm has semantics (one CPU computation whatever the
    # hint), so the two are proven equal (at level real: layer_norm's kernel rounds its own way).
    yield "rmsnorm: script vs .pt2 differ in cudnn_enable", ["check", f"{fx}/t113/rmsnorm.script.pt", f"{fx}/t211/rmsnorm.pt2", rms], EQUIVALENT, ""
    # torch.jit.trace records `+ 1e-6` as add.Tensor with a 0-dim f64 tensor constant, scripting
    # as add.Scalar; both add float32(1e-6) in f32, and normalization unifies the two spellings.
    yield "rmsnorm: script vs trace pass eps differently", ["check", f"{fx}/t113/rmsnorm.script.pt", f"{fx}/t113/rmsnorm.trace.pt", rms], EQUIVALENT, ""
    # cumsum and avg_pool2d have no shape rule: their result types come from running them on meta
    # tensors (Note [Result types by running the op]); refused with exit 3 before.
    pool = "--inputs=f32[1,2,4,4]"
    yield "ops without a shape rule: script = trace", ["check", f"{fx}/t113/pooled.script.pt", f"{fx}/t113/pooled.trace.pt", pool], EQUIVALENT, ""
    yield "ops without a shape rule: cumsum over another dim", ["check", f"{fx}/t113/pooled.script.pt", f"{fx}/t113/pooled_dim2.script.pt", pool], NOT_EQUIVALENT, ""
    # A custom op in a TorchScript file: LibTorch cannot load the file without the op's
    # registration, and torchtv names the op (not read yet: issue 16).
    # The same user kernel called from TorchScript: LibTorch loads the file once --fusions declares
    # the op (Note [Custom ops in TorchScript files]); without it, refused naming the op and the fix.
    cpt = ["check", f"{fx}/t113/custom_op.script.pt", f"{fx}/t113/custom_op_plain.script.pt", "--inputs=f32[4,8]"]
    yield "custom op .pt = plain, with its definition", cpt + [f"--fusions={co}/fusions"], EQUIVALENT, ""
    yield "custom op .pt: a definition with the wrong eps", cpt + [f"--fusions={co}/fusions_wrong_eps"], NOT_EQUIVALENT, ""
    yield "custom op .pt without --fusions: refused, naming the op", cpt, ERROR, "Unknown builtin op: tvx::rmsnorm. (a custom op: declare it"
    yield "show .pt", ["show", f"{fx}/t211/mlp.trace.pt", mlp], EQUIVALENT, ""

    # Bad input: exit 3 and a message naming the file and the cause.
    with open(f"{fx}/t211/mlp.pt2", "rb") as f:
        good = f.read()
    with open(f"{tmp}/truncated.pt2", "wb") as f:
        f.write(good[: len(good) // 2])
    with open(f"{tmp}/random.pt", "wb") as f:
        f.write(os.urandom(1000))
    with open(f"{tmp}/archive.pt", "wb") as f:
        f.write(good)  # a zip, but not TorchScript
    with open(f"{tmp}/text.pt2", "w") as f:
        f.write("hello\n")
    yield "truncated .pt2", ["check", f"{tmp}/truncated.pt2", f"{fx}/t211/mlp.pt2"], ERROR, "truncated.pt2: not a readable .pt2 archive"
    yield "not a zip .pt2", ["show", f"{tmp}/text.pt2"], ERROR, "text.pt2: not a readable .pt2 archive"
    yield "random bytes .pt", ["check", f"{tmp}/random.pt", f"{fx}/t113/mlp.script.pt", mlp], ERROR, "random.pt: not a readable TorchScript file"
    yield "zip that is not TorchScript", ["show", f"{tmp}/archive.pt", mlp], ERROR, "archive.pt: not a readable TorchScript file"
    yield "unknown schema major", ["show", f"{fx}/old_layout/unknown_version.pt2"], ERROR, "schema version 99.0 is not supported"
    yield ".pt without --inputs", ["show", f"{fx}/t113/mlp.script.pt"], ERROR, "mlp.script.pt: a TorchScript file has no shapes"
    yield "--inputs count", ["show", f"{fx}/t113/mlp.script.pt", "--inputs=f32[3,8],f32[8]"], ERROR, "forward takes 1 input(s) (x) but --inputs gives 2"
    yield "--inputs dtype", ["show", f"{fx}/t113/mlp.script.pt", "--inputs=i64[3,8]"], ERROR, "mlp.script.pt: aten::linear at"
    yield "--inputs shape", ["show", f"{fx}/t113/mlp.script.pt", "--inputs=f32[3,7]"], ERROR, "mlp.script.pt: aten::linear at"
    yield "--inputs syntax", ["show", f"{fx}/t113/mlp.script.pt", "--inputs=f32[3,8"], ERROR, "unbalanced"
    yield "--inputs vs .pt2", ["show", f"{fx}/t211/mlp.dynamic.pt2", mlp], ERROR, "does not match the file's user inputs (x: f32[s77,8])"
    yield "control flow", ["show", f"{fx}/t113/if_else.script.pt", "--inputs=f32[3]"], ERROR, "prim::If at"
    yield "returns None", ["show", f"{fx}/t113/returns_none.script.pt", "--inputs=f32[3]"], ERROR, "returns None"

    # TorchScript with in-place ops (Note [TorchScript in-place ops]): made functional where
    # nothing else sees the modified tensor, refused where something does.
    ip, one, two = f"{fx}/inplace", "--inputs=f32[3,4]", "--inputs=f32[3,4],f32[3,4]"
    yield ".pt in place: chain of updates", ["check", f"{ip}/chain_plain.pt", f"{ip}/chain_inplace.pt", two], EQUIVALENT, ""
    yield ".pt in place: planted bug", ["check", f"{ip}/chain_plain.pt", f"{ip}/chain_inplace_bad.pt", two], NOT_EQUIVALENT, ""
    yield ".pt in place: read before the update", \
        ["check", f"{ip}/read_then_write_plain.pt", f"{ip}/read_then_write.pt", one], EQUIVALENT, ""
    yield ".pt in place: masked_fill_", ["check", f"{ip}/masked_fill_plain.pt", f"{ip}/masked_fill_inplace.pt", one], EQUIVALENT, ""
    yield ".pt input modified in place", ["check", f"{ip}/square.pt", f"{ip}/square_mutates_input.pt", one], NOT_EQUIVALENT, \
        "production modifies its input %x in place"
    yield ".pt input modified in place, both sides", \
        ["check", f"{ip}/square_mutates_input.pt", f"{ip}/square_mutates_input.pt", one], EQUIVALENT, ""
    # Through views (Note [TorchScript in-place ops through views]): the view's update, then what
    # it is a view of, read anew (view back, select_scatter, slice_scatter).
    yield ".pt in place through a view", ["check", f"{ip}/x_plus_one.pt", f"{ip}/view_modified.pt", one], EQUIVALENT, ""
    yield ".pt in place through select and slices", ["check", f"{ip}/rows_plain.pt", f"{ip}/rows_inplace.pt", one], \
        EQUIVALENT, ""
    yield ".pt in place through views: planted bug", \
        ["check", f"{ip}/rows_plain.pt", f"{ip}/rows_inplace_bad.pt", one], NOT_EQUIVALENT, ""
    xent = "--inputs=f32[3,4],i64[3]"
    yield ".pt cross-entropy backward through a view (g2[idx] -= 1)", \
        ["check", f"{ip}/xent_plain.pt", f"{ip}/xent_inplace.pt", xent], EQUIVALENT, "%target is an index in [0, 4)"
    yield ".pt cross-entropy backward through a view: planted bug", \
        ["check", f"{ip}/xent_plain.pt", f"{ip}/xent_inplace_bad.pt", xent], NOT_EQUIVALENT, ""
    yield ".pt in place through a view of an input: refused", ["show", f"{ip}/input_row_zeroed.pt", one], ERROR, \
        "modifies a tensor in place that torchtv cannot make functional exactly"
    yield ".pt in place through a view read after its base's next update: refused", \
        ["show", f"{ip}/view_kept_base_updated.pt", one], ERROR, "aten::zero_ at"
    yield ".pt in place, a view read after: refused", ["show", f"{ip}/view_read_after.pt", one], ERROR, \
        "aten::add_ at"
    yield ".pt in place, a list read after: refused", ["show", f"{ip}/list_holds_modified.pt", one], ERROR, \
        "aten::add_ at"

    # copy_, zero_, fill_ and out= variants (Note [TorchScript in-place ops]): ATen's copy_
    # broadcasts and converts, out= buffers are never read and may be resized.
    yield ".pt copy_ (broadcast, f32 into f64, into empty)", \
        ["check", f"{ip}/copy_plain.pt", f"{ip}/copy_inplace.pt", two], EQUIVALENT, ""
    yield ".pt copy_: planted bug", ["check", f"{ip}/copy_plain.pt", f"{ip}/copy_inplace_bad.pt", two], NOT_EQUIVALENT, \
        "output v_3: not_equivalent"
    yield ".pt zero_ and fill_", ["check", f"{ip}/fill_plain.pt", f"{ip}/fill_inplace.pt", two], EQUIVALENT, ""
    yield ".pt fill_: planted bug", ["check", f"{ip}/fill_plain.pt", f"{ip}/fill_inplace_bad.pt", two], NOT_EQUIVALENT, ""
    yield ".pt zero_ of an input", ["check", f"{ip}/sum.pt", f"{ip}/sum_zeroes_input.pt", one], NOT_EQUIVALENT, \
        "production modifies its input %x in place"
    yield ".pt out= (add, mm into an empty buffer)", \
        ["check", f"{ip}/out_plain.pt", f"{ip}/out_variants.pt", two], EQUIVALENT, ""
    yield ".pt out=: planted bug", ["check", f"{ip}/out_plain.pt", f"{ip}/out_variants_bad.pt", two], NOT_EQUIVALENT, ""
    yield ".pt out= into an input = copy_ into it", \
        ["check", f"{ip}/out_into_input.pt", f"{ip}/copy_into_input.pt", two], EQUIVALENT, "x__updated"
    yield ".pt out= into an input vs no update", \
        ["check", f"{ip}/out_into_input.pt", f"{ip}/y_plus_one.pt", two], NOT_EQUIVALENT, \
        "reference modifies its input %x in place, production does not"
    yield ".pt out= tensor also an operand: refused", ["show", f"{ip}/out_reads_itself.pt", two], ERROR, \
        "aten::mm at"
    yield ".pt out= into a view: refused", ["show", f"{ip}/out_into_view.pt", two], ERROR, \
        "another value can read the modified tensor too"
    yield ".pt in place on type_as, which may return its input: refused", \
        ["show", f"{ip}/type_as_alias.pt", two], ERROR, "another value can read the modified tensor too"

    # Uninitialized memory (Note [Uninitialized memory] in src/eval/concrete.cpp): addmm_ with
    # beta=0 never reads it, so its planted bug is refuted by evaluation; a result adding it in
    # is never equal to anything.
    yield ".pt empty_like().addmm_(beta=0)", ["check", f"{ip}/lora_plain.pt", f"{ip}/lora_inplace.pt", two], EQUIVALENT, ""
    yield ".pt empty_like().addmm_: planted bug refuted", \
        ["check", f"{ip}/lora_plain.pt", f"{ip}/lora_inplace_bad.pt", two], NOT_EQUIVALENT, "counterexample"
    yield ".pt a read of uninitialized memory", ["check", f"{ip}/y_plus_one.pt", f"{ip}/reads_uninitialized.pt", two], \
        UNKNOWN, "aten::empty_like is random"

    # Archives that record in-place updates (Note [pt2 input mutations]): an update is an output
    # NAME__updated, and a modification on one side only is refuted with that reason.
    mut = write_archives(tmp)
    yield ".pt2 input mutation shown as an output", ["show", mut["square_mutates"]], EQUIVALENT, "x__updated"
    yield ".pt2 input mutation: production only", ["check", mut["square"], mut["square_mutates"]], NOT_EQUIVALENT, \
        "production modifies its input %x in place"
    yield ".pt2 input mutation: reference only", ["check", mut["square_mutates"], mut["square"]], NOT_EQUIVALENT, \
        "reference modifies its input %x in place, production does not"
    yield ".pt2 input mutation: both sides alike", ["check", mut["square_mutates"], mut["square_mutates"]], EQUIVALENT, ""
    yield ".pt2 buffer update: same update written differently", ["check", mut["running_a"], mut["running_b"]], EQUIVALENT, \
        "running_mean__updated"
    yield ".pt2 buffer update: planted momentum bug", ["check", mut["running_a"], mut["running_bad"]], NOT_EQUIVALENT, \
        "running_mean__updated"
    yield ".pt2 buffer update of no buffer", ["show", mut["running_stray"]], ERROR, \
        "running_stray.pt2: output 'add' updates 'bn.running_var', which is not an input of the program"
    # Note [In-place ops in .pt2 programs]: torch.export's traced form keeps in-place ops.
    yield ".pt2 in-place op = its functional form", ["check", mut["inplace_traced"], mut["inplace_functional"]], \
        EQUIVALENT, ""
    yield ".pt2 in-place op: a read of the old value is a bug", ["check", mut["inplace_traced"], mut["inplace_stale"]], \
        NOT_EQUIVALENT, ""
    yield ".pt2 in-place op, a view read after: refused", ["show", mut["inplace_view_read"]], ERROR, \
        "modifies 'y' in place while 'v', which may share its memory, is read afterwards"
    # The same reader for in-place ops as a decomposed program spells them (copy_, zero_, fill_).
    yield ".pt2 copy_ into empty = its functional form", ["check", mut["inplace_functional"], mut["copy_into_empty"]], \
        EQUIVALENT, ""
    yield ".pt2 copy_: planted bug", ["check", mut["inplace_functional"], mut["copy_into_empty_bad"]], NOT_EQUIVALENT, ""
    yield ".pt2 zero_ and fill_ = the functional form", ["check", mut["inplace_functional"], mut["zero_fill"]], \
        EQUIVALENT, ""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--fixtures", required=True)
    args = ap.parse_args()
    failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        for name, argv, rc, needle in cases(args.fixtures, tmp):
            try:
                p = subprocess.run([args.torchtv] + argv, capture_output=True, text=True, timeout=120)
            except subprocess.TimeoutExpired:
                print(f"FAIL {name}: timeout")  # a timeout is a failure, never a pass
                failed += 1
                continue
            out = p.stdout + p.stderr
            ok = p.returncode == rc and needle in out
            print(f"{'ok  ' if ok else 'FAIL'} {name}")
            if not ok:
                failed += 1
                print(f"  expected exit {rc} and {needle!r}; got exit {p.returncode}:\n  " + out.replace("\n", "\n  "))
    print(f"{failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
