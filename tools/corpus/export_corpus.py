"""Exports the corpus of real programs (issue 16, item 6) and the attention training pair of
issue 15 with torch.export, on a machine with torch >= 2.5 (the GPU machine has 2.11 with
torchvision, timm and transformers). Every model is built from a tiny config with random
weights (nothing is downloaded) and exported on the CPU, in inference and in training (the joint
forward+backward graph), each before and after `run_decompositions()`:

    PYTHONUNBUFFERED=1 python3 tools/corpus/export_corpus.py --out /tmp/corpus [--jobs 8]

then copy OUT/*.pt2 and OUT/models.json into tests/corpus/, and OUT/attention_train/* into
tests/corpus/attention_train/, and rerun `tests/corpus/run_corpus.py --record --ops
tests/corpus/ops.txt`. On the device machine (the `run` tool; it sends the session's main
checkout, so copy this file into an ignored folder there, e.g. build_corpus_dev/, and name it in
`carry`): `python3 export_corpus.py --out /tmp/c && tar czf $OUT/corpus.tgz -C /tmp/c .`
(about 60 s with --jobs 12 on 16 cores).

Files: MODEL_MODE.pt2 (torch.export's graph as traced) and MODEL_MODE_decomposed.pt2
(`run_decompositions()`, Core ATen). Training is torch.export's own joint graph, made as
`torch.export.experimental._export_forward_backward(torch.export.export(loss module))` makes it
but without its Core ATen decomposition table (so that the traced form keeps ATen's backward ops
and `run_decompositions()` has something to do; `_export_forward_backward` itself is the
fallback), whose loss and gradient outputs are relabelled user outputs (`relabel_joint`:
torchtv's reader refuses the joint kinds today; the graph is unchanged, models.json keeps the
original kinds). Where that fails, the module `TrainStep`
(forward computes the loss and returns it with `torch.autograd.grad`) is exported instead;
models.json says which (`capture`). A transformers or timm model whose default (sdpa) attention cannot
be exported or decomposed is retried with eager attention, and a training graph that cannot be
exported in train mode (Whisper's layerdrop branch) with the model in eval mode
(`retried_because`). Tied embeddings are untied (the joint graph refuses a parameter bound
twice), and parameters that get no gradient are frozen (`capture_notes`).
Sample inputs are stripped from every archive (torchtv treats weights as inputs; the weights
stay, so that torch.export.load still reads the file: `reloads` records that it does). Node
metadata is slimmed (`slim_metadata`) and the JSON entries deflated, which keeps the corpus
under 4 MB (MobileNetV3, whose weights alone would double it, is left out unless --models names
it). `max_diff` compares each exported program, run, with eager execution (training: the
loss and `torch.autograd.grad`), and each decomposed program with its traced one.

Each (model, mode) runs in its own process: a crash or hang costs only that one. Everything is
logged to OUT/log.txt; a failure is recorded in models.json's `failures` with its reason.
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback
import zipfile

MODES = ("inference", "training")


# ----------------------------------------------------------------------------- models
# Each builder returns (module, inputs for inference, extra inputs for training, call, loss,
# library, config). call(module, *inputs) returns the output tensor(s); loss(out, *inputs) the
# scalar loss. Dropout probabilities are 0 (HF still writes `dropout(p=0.0, train=True)` in
# training, as real programs do); attention is each library's default implementation.

# None: the library's default (sdpa); run_one retries with "eager" where that fails.
ATTN = {"impl": None}


def _classifier_loss(out, x, target):
    import torch.nn.functional as F
    return F.cross_entropy(out, target)


def _lm_loss(logits, ids, *rest):
    import torch.nn.functional as F
    v = logits.shape[-1]
    return F.cross_entropy(logits[:, :-1].reshape(-1, v), ids[:, 1:].reshape(-1))


def _image(torch):
    return (torch.randn(2, 3, 32, 32),), (torch.randint(0, 10, (2,)),)


def resnet18():
    import torch
    import torchvision
    from torchvision.models.resnet import BasicBlock, ResNet

    class TinyResNet(ResNet):
        """torchvision's ResNet-18 at 1/16 of its width (stem 8 channels, stages 4, 8, 16, 32):
        torchvision's own blocks and layer construction, only the widths changed."""

        def _make_layer(self, block, planes, blocks, stride=1, dilate=False):
            if planes == 64:  # the first stage: narrow the stem built just before it
                self.inplanes = 8
                self.conv1 = torch.nn.Conv2d(3, 8, kernel_size=7, stride=2, padding=3, bias=False)
                self.bn1 = torch.nn.BatchNorm2d(8)
            return super()._make_layer(block, planes // 16, blocks, stride, dilate)

    m = TinyResNet(BasicBlock, [2, 2, 2, 2], num_classes=10)
    m.fc = torch.nn.Linear(32, 10)
    cfg = {"arch": "torchvision.models.resnet.ResNet(BasicBlock, [2,2,2,2])",
           "width": "1/16 (stem 8, planes 4,8,16,32)",
           "num_classes": 10, "input": [2, 3, 32, 32], "torchvision": torchvision.__version__}
    return m, *_image(torch), lambda m, x: m(x), _classifier_loss, "torchvision", cfg


def mobilenet_v3():
    import torch
    import torchvision
    m = torchvision.models.mobilenet_v3_small(width_mult=0.25, num_classes=10, dropout=0.0)
    cfg = {"arch": "torchvision.models.mobilenet_v3_small", "width_mult": 0.25, "num_classes": 10,
           "input": [2, 3, 32, 32], "torchvision": torchvision.__version__}
    return m, *_image(torch), lambda m, x: m(x), _classifier_loss, "torchvision", cfg


def _timm(name, **kw):
    import torch
    import timm
    if ATTN["impl"] == "eager":  # timm's own switch between F.scaled_dot_product_attention and matmuls
        timm.layers.set_fused_attn(False)
    m = timm.create_model(name, pretrained=False, **kw)
    cfg = dict(kw, arch=name, input=[2, 3, 32, 32], timm=timm.__version__)
    return m, *_image(torch), lambda m, x: m(x), _classifier_loss, "timm", cfg


def vit():
    return _timm("vit_tiny_patch16_224", img_size=32, patch_size=8, depth=2, embed_dim=16, num_heads=2,
                 num_classes=10)


def convnext():
    return _timm("convnext_atto", depths=(1, 1, 1, 1), dims=(4, 8, 16, 32), num_classes=10)


def _hf(config_cls, model_cls, **cfg):
    import transformers
    config = config_cls(**cfg)
    if ATTN["impl"]:
        config._attn_implementation = ATTN["impl"]
    m = model_cls(config)
    return m, dict(cfg, arch=model_cls.__name__, attn_implementation=getattr(config, "_attn_implementation", None),
                   transformers=transformers.__version__)


def _ids(torch, vocab=100, shape=(2, 16)):
    return torch.randint(0, vocab, shape)


def bert():
    import torch
    from transformers import BertConfig, BertForMaskedLM
    m, cfg = _hf(BertConfig, BertForMaskedLM, hidden_size=16, num_hidden_layers=2, num_attention_heads=2,
                 intermediate_size=32, vocab_size=100, max_position_embeddings=16, hidden_dropout_prob=0.0, tie_word_embeddings=False,
                 attention_probs_dropout_prob=0.0)
    ids = _ids(torch)
    cfg["input"] = "input_ids [2,16]; loss: cross entropy of the logits against the input ids"

    def loss(logits, ids):
        import torch.nn.functional as F
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids.reshape(-1))
    return m, (ids,), (), lambda m, ids: m(input_ids=ids).logits, loss, "transformers", cfg


def gpt2():
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel
    m, cfg = _hf(GPT2Config, GPT2LMHeadModel, n_layer=2, n_embd=16, n_head=2, vocab_size=100, n_positions=16, tie_word_embeddings=False,
                 resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    cfg["input"] = "input_ids [2,16]; loss: next-token cross entropy"
    return m, (_ids(torch),), (), lambda m, ids: m(input_ids=ids, use_cache=False).logits, _lm_loss, "transformers", cfg


def llama():
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM
    m, cfg = _hf(LlamaConfig, LlamaForCausalLM, hidden_size=16, intermediate_size=32, num_hidden_layers=2,
                 num_attention_heads=4, num_key_value_heads=2, vocab_size=100, max_position_embeddings=16,
                 tie_word_embeddings=False)
    cfg["input"] = "input_ids [2,16]; loss: next-token cross entropy"
    return m, (_ids(torch),), (), lambda m, ids: m(input_ids=ids, use_cache=False).logits, _lm_loss, "transformers", cfg


def t5():
    import torch
    from transformers import T5Config, T5ForConditionalGeneration
    m, cfg = _hf(T5Config, T5ForConditionalGeneration, d_model=16, d_kv=8, d_ff=32, num_layers=2,
                 num_decoder_layers=2, num_heads=2, vocab_size=100, dropout_rate=0.0, tie_word_embeddings=False, decoder_start_token_id=0,
                 pad_token_id=0)
    cfg["input"] = "input_ids [2,16], decoder_input_ids [2,8]; loss: cross entropy against decoder_input_ids"

    def call(m, ids, dec):
        return m(input_ids=ids, decoder_input_ids=dec, use_cache=False).logits

    def loss(logits, ids, dec):
        import torch.nn.functional as F
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), dec.reshape(-1))
    return m, (_ids(torch), _ids(torch, shape=(2, 8))), (), call, loss, "transformers", cfg


def whisper():
    import torch
    from transformers import WhisperConfig, WhisperForConditionalGeneration
    m, cfg = _hf(WhisperConfig, WhisperForConditionalGeneration, d_model=16, encoder_layers=2, decoder_layers=2,
                 encoder_attention_heads=2, decoder_attention_heads=2, encoder_ffn_dim=32, decoder_ffn_dim=32,
                 vocab_size=100, tie_word_embeddings=False, num_mel_bins=8, max_source_positions=16, max_target_positions=16,
                 dropout=0.0, attention_dropout=0.0, activation_dropout=0.0, decoder_start_token_id=1,
                 pad_token_id=0, bos_token_id=1, eos_token_id=2)
    cfg["input"] = "input_features [2,8,32], decoder_input_ids [2,8]; loss: cross entropy against decoder_input_ids"

    def call(m, feats, dec):
        return m(input_features=feats, decoder_input_ids=dec, use_cache=False).logits

    def loss(logits, feats, dec):
        import torch.nn.functional as F
        return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), dec.reshape(-1))
    return m, (torch.randn(2, 8, 32), _ids(torch, shape=(2, 8))), (), call, loss, "transformers", cfg


MODELS = {"resnet18": resnet18, "vit": vit, "convnext": convnext, "bert": bert, "gpt2": gpt2, "llama": llama,
          "t5": t5, "whisper": whisper, "mobilenet_v3": mobilenet_v3}
# mobilenet_v3 is left out by default: even at width 0.25 its weights (570 KB an archive) would
# make up half of the committed corpus.
DEFAULT_MODELS = [m for m in MODELS if m != "mobilenet_v3"]


# ----------------------------------------------------------------------------- wrappers

def wrappers():
    import torch

    class Forward(torch.nn.Module):
        def __init__(self, model, call):
            super().__init__()
            self.model, self.call = model, call

        def forward(self, *inputs):
            return self.call(self.model, *inputs)

    class Loss(torch.nn.Module):
        def __init__(self, fwd, loss, n_model_inputs):
            super().__init__()
            self.fwd, self.loss, self.n = fwd, loss, n_model_inputs

        def forward(self, *inputs):
            return self.loss(self.fwd(*inputs[:self.n]), *inputs)

    class TrainStep(torch.nn.Module):
        """The loss and its gradients with respect to every trainable parameter."""

        def __init__(self, loss_module):
            super().__init__()
            self.lm = loss_module

        def forward(self, *inputs):
            loss = self.lm(*inputs)
            params = [p for p in self.lm.parameters() if p.requires_grad]
            # grad_outputs written out: the engine's implicit ones would be a constant that
            # torch.export cannot lift ("fake tensor in the constant's list").
            return (loss, *torch.autograd.grad(loss, params, grad_outputs=torch.ones_like(loss)))

    return Forward, Loss, TrainStep


# ----------------------------------------------------------------------------- helpers

def leaves(x):
    import torch
    return [t for t in torch.utils._pytree.tree_leaves(x) if isinstance(t, torch.Tensor)]


def output_diffs(a, b):
    """Largest absolute difference of each output of two output structures, or a string saying
    why they cannot be compared."""
    la, lb = leaves(a), leaves(b)
    if len(la) != len(lb):
        return "outputs differ in number: %d vs %d" % (len(la), len(lb))
    diffs = []
    for x, y in zip(la, lb):
        if x.shape != y.shape or x.dtype != y.dtype:
            return "output %s %s vs %s %s" % (x.dtype, list(x.shape), y.dtype, list(y.shape))
        d = (x.double() - y.double()).abs()
        d = d[~(x.isnan() & y.isnan())]
        diffs.append(float(d.max()) if d.numel() else 0.0)
    return diffs


def max_diff(a, b):
    d = output_diffs(a, b)
    return max(d, default=0.0) if isinstance(d, list) else d


def op_name(target):
    """torchtv's spelling of a node's target: aten::add.Tensor, aten::relu (overload 'default' dropped)."""
    import torch
    if isinstance(target, torch._ops.OpOverload):
        name = target._schema.name
        ov = target._overloadname
        return name if ov == "default" else "%s.%s" % (name, ov)
    return getattr(target, "__name__", str(target))


def graph_ops(ep):
    import operator
    ops = {}
    nodes = 0
    for n in ep.graph.nodes:
        if n.op != "call_function" or n.target is operator.getitem:
            continue
        nodes += 1
        k = op_name(n.target)
        ops[k] = ops.get(k, 0) + 1
    return nodes, dict(sorted(ops.items()))


def slim_metadata(ep):
    """Node metadata is three quarters of a program's JSON: keep the innermost frame of each
    stack trace (torchtv's loc()), nn_module_stack and torch_fn; drop from_node (the pass
    history) and the outer frames."""
    for n in ep.graph.nodes:
        n.meta.pop("from_node", None)
        trace = n.meta.get("stack_trace")
        if trace:
            at = trace.rfind('File "')
            n.meta["stack_trace"] = trace[at:] if at >= 0 else trace


def _aligned_zip(entries, path, deflate_json):
    """Writes (name, bytes) entries as torch's writer does (stored, data 64-byte aligned through
    a padding extra field), with the JSON entries deflated if asked."""
    import struct
    with open(path, "wb") as f, zipfile.ZipFile(f, "w") as z:
        for name, data in entries:
            zi = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            if deflate_json and name.endswith(".json"):
                zi.compress_type = zipfile.ZIP_DEFLATED
            else:
                zi.compress_type = zipfile.ZIP_STORED
                start = f.tell() + 30 + len(name.encode()) + 4
                pad = (-start) % 64
                zi.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
            z.writestr(zi, data)


def save_stripped(ep, path):
    """torch.export.save without the sample inputs (cleared before saving) and with slim node
    metadata; then the JSON entries are deflated if torch.export.load still reads the result
    (else torch's own stored archive is kept; `compression` says which)."""
    import warnings
    import torch
    try:
        ep.example_inputs = None
    except Exception:
        ep._example_inputs = None
    slim_metadata(ep)
    torch.export.save(ep, path)
    with zipfile.ZipFile(path) as z:
        entries = [(i.filename, z.read(i.filename)) for i in z.infolist()]
    sample = [n for n, _ in entries if "/sample_inputs/" in n]
    original = open(path, "rb").read()
    info = {"compression": "stored (torch.export.save)"}
    for deflate in (True,):
        _aligned_zip(entries, path, deflate)
        try:
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                torch.export.load(path)
            info["compression"] = "json deflated"
            break
        except Exception as e:
            info["deflate_error"] = "%s: %s | %s" % (type(e).__name__, str(e)[:200],
                                                     " | ".join(str(x.message)[:300] for x in w[:3]))
            with open(path, "wb") as f:
                f.write(original)
    try:
        torch.export.load(path)
        reloads, err = True, None
    except Exception as e:
        reloads, err = False, "%s: %s" % (type(e).__name__, str(e)[:300])
    info.update({"bytes": os.path.getsize(path), "reloads": reloads, "reload_error": err,
                 "sample_inputs_left": sample})
    return info


def record(ep, path, entry, reference_out, inputs, log):
    import torch
    info = dict(entry)
    info["file"] = os.path.basename(path)
    info["nodes"], info["ops"] = graph_ops(ep)
    info["distinct_ops"] = len(info["ops"])
    info["output_kinds"] = sorted({str(s.kind).split(".")[-1].lower() for s in ep.graph_signature.output_specs})
    info["input_kinds"] = sorted({str(s.kind).split(".")[-1].lower() for s in ep.graph_signature.input_specs})
    try:
        with torch.no_grad() if entry["mode"] == "inference" else torch.enable_grad():
            d = output_diffs(ep.module()(*inputs), reference_out)
            info["max_diff"] = max(d, default=0.0) if isinstance(d, list) else d
            if isinstance(d, list) and info["max_diff"] > 1e-4:
                info["diff_per_output"] = ["%.3g" % x for x in d]
    except Exception as e:
        info["max_diff"] = "not run: %s: %s" % (type(e).__name__, str(e)[:200])
    info.update(save_stripped(ep, path))
    log("  wrote %s: %d nodes, %d ops, %d bytes, max_diff %s, reloads %s" % (
        info["file"], info["nodes"], info["distinct_ops"], info["bytes"], info["max_diff"], info["reloads"]))
    return info


def close_enough(d, tol=1e-4):
    return isinstance(d, float) and d <= tol


# ----------------------------------------------------------------------------- training captures

def relabel_joint(ep):
    """A joint ExportedProgram (torch.export.experimental._export_forward_backward) marks its
    outputs LOSS_OUTPUT and GRADIENT_TO_PARAMETER / GRADIENT_TO_USER_INPUT, which torchtv's
    reader refuses today. Only the labels change: those outputs become USER_OUTPUTs (in the
    graph's order: loss, then the gradients), the module's output spec a flat tuple. Buffer
    mutations (batch norm's running statistics) keep their kind. Returns the original kinds."""
    import torch.utils._pytree as pytree
    from torch.export.graph_signature import OutputKind, OutputSpec
    sig = ep.graph_signature
    joint = (OutputKind.LOSS_OUTPUT, OutputKind.GRADIENT_TO_PARAMETER, OutputKind.GRADIENT_TO_USER_INPUT)
    original = [str(o.kind).split(".")[-1].lower() for o in sig.output_specs]
    specs = [OutputSpec(kind=OutputKind.USER_OUTPUT, arg=o.arg, target=None) if o.kind in joint else o
             for o in sig.output_specs]
    sig.output_specs[:] = specs
    n_user = sum(o.kind == OutputKind.USER_OUTPUT for o in specs)
    ep._module_call_graph[0].signature.out_spec = pytree.tree_structure(tuple(range(n_user)))
    return original


def capture_training(model, call, loss_fn, inputs, n_model_inputs, log):
    """Returns (ExportedProgram, capture description, eager outputs to compare with, notes)."""
    import torch
    from torch.export.experimental import _export_forward_backward
    Forward, Loss, TrainStep = wrappers()
    lm = Loss(Forward(model, call), loss_fn, n_model_inputs)
    # A parameter bound under two names (tied embeddings, T5's shared table) gets a copy per
    # name: the joint graph refuses a parameter that one of its names receives no gradient for.
    seen, untied = set(), []
    for mod_name, mod in lm.named_modules(remove_duplicate=False):
        for pname, p in list(mod._parameters.items()):
            if p is None:
                continue
            if id(p) in seen:
                setattr(mod, pname, torch.nn.Parameter(p.detach().clone(), requires_grad=p.requires_grad))
                untied.append(mod_name + "." + pname)
            seen.add(id(p))
    # Parameters the loss does not reach are frozen: the joint graph refuses parameters
    # without a gradient.
    params = [(n, p) for n, p in lm.named_parameters() if p.requires_grad]
    with torch.enable_grad():
        grads = torch.autograd.grad(lm(*inputs), [p for _, p in params], allow_unused=True)
    frozen = [n for (n, p), g in zip(params, grads) if g is None]
    for (n, p), g in zip(params, grads):
        if g is None:
            p.requires_grad_(False)
    notes = ["frozen (no gradient): " + ", ".join(frozen)] if frozen else []
    if untied:
        notes.append("untied (copied): " + ", ".join(untied))
    step = TrainStep(lm)
    with torch.enable_grad():
        want = step(*inputs)  # (loss, gradients of the trainable parameters in order)
    # 1. The joint graph as torch.export's joint-graph API makes it, minus its Core ATen table:
    # _export_forward_backward is _decompose_exported_program(..., python_decomp_table=
    # core_aten_decompositions(), joint_loss_index=0) and a pass dropping detach pairs; with an
    # empty table the graph keeps ATen's backward ops (convolution_backward,
    # native_layer_norm_backward, ...), and run_decompositions() makes the Core ATen form.
    try:
        import torch.export.experimental as experimental
        from torch.export.exported_program import _decompose_exported_program
        with torch.enable_grad():
            ep = _decompose_exported_program(torch.export.export(lm, inputs, strict=False), cia_to_decomp={},
                                             python_decomp_table={}, joint_loss_index=0,
                                             decompose_custom_triton_ops=False)
        if hasattr(experimental, "_copy_graph_module_and_signature") and hasattr(experimental, "_remove_detach_pass"):
            gm, sig = experimental._copy_graph_module_and_signature(ep)
            experimental._remove_detach_pass(gm, sig)
            ep = ep._update(gm, sig)
        kinds = relabel_joint(ep)
        notes.append("original output kinds: " + ", ".join(sorted(set(kinds))))
        return ep, "joint graph of torch.export.export(loss module) by _decompose_exported_program(cia_to_decomp={}, " \
            "python_decomp_table={}, joint_loss_index=0) (_export_forward_backward without its Core ATen table), " \
            "loss and gradient outputs relabelled user outputs", want, notes
    except Exception as e:
        notes.append("joint graph without decompositions: %s: %s" % (type(e).__name__, str(e)[:400]))
        log("  " + notes[-1] + "\n" + traceback.format_exc()[-2000:])
    # 2. torch.export's joint-graph API (Core ATen already).
    try:
        with torch.enable_grad():
            ep = _export_forward_backward(torch.export.export(lm, inputs, strict=False))
        kinds = relabel_joint(ep)
        notes.append("original output kinds: " + ", ".join(sorted(set(kinds))))
        return ep, "torch.export.experimental._export_forward_backward(torch.export.export(loss module)), " \
            "loss and gradient outputs relabelled user outputs", want, notes
    except Exception as e:
        notes.append("_export_forward_backward: %s: %s" % (type(e).__name__, str(e)[:400]))
        log("  " + notes[-1] + "\n" + traceback.format_exc()[-2000:])
    # 3. torch.export of the train step (forward computes the loss and torch.autograd.grad).
    with torch.enable_grad():
        ep = torch.export.export(step, inputs, strict=False)
    return ep, "torch.export.export(TrainStep)", want, notes


def export_one(name, mode, out, log, train_mode=True):
    import torch
    torch.manual_seed(0)
    torch.set_num_threads(2)
    model, inputs, extra, call, loss_fn, library, cfg = MODELS[name]()
    Forward = wrappers()[0]
    entry = {"model": name, "library": library, "config": cfg, "mode": mode, "torch": torch.__version__}
    if mode == "inference":
        model.eval()
        fwd = Forward(model, call)
        with torch.no_grad():
            want = fwd(*inputs)
            ep = torch.export.export(fwd, inputs, strict=False)
        entry["capture"] = "torch.export.export(model.eval())"
        args = inputs
    else:
        model.train(train_mode)
        args = inputs + extra
        ep, entry["capture"], want, errors = capture_training(model, call, loss_fn, args, len(inputs), log)
        if not train_mode:
            entry["capture"] += " with the model in eval mode"
        if errors:
            entry["capture_notes"] = errors
    with torch.no_grad() if mode == "inference" else torch.enable_grad():
        try:
            ref = ep.module()(*args)
        except Exception as e:
            ref = None
            log("  the exported program does not run: %s: %s" % (type(e).__name__, str(e)[:300]))
        dec = ep.run_decompositions()
    base = os.path.join(out, "%s_%s" % (name, mode))
    return [record(ep, base + ".pt2", dict(entry, form="export"), want, args, log),
            record(dec, base + "_decomposed.pt2", dict(entry, form="decomposed"), ref, args, log)]


def run_one(name, mode, out, log):
    """export_one, retried where it fails: transformers models with eager attention (their sdpa
    path can fail in run_decompositions), training with the model in eval mode (a data-dependent
    branch such as Whisper's layerdrop cannot be exported in train mode). The first failure is
    kept in the manifest's `retried_because`."""
    hf = name in ("bert", "gpt2", "llama", "t5", "whisper", "vit")  # models with an attention switch
    tries = [(None, True)] + ([("eager", True)] if hf else [])
    if mode == "training":
        tries += [(None, False)] + ([("eager", False)] if hf else [])
    first = None
    for i, (attn, train_mode) in enumerate(tries):
        ATTN["impl"] = attn
        try:
            res = export_one(name, mode, out, log, train_mode)
        except Exception as e:
            if i + 1 == len(tries):
                raise
            msg = "%s: %s" % (type(e).__name__, str(e)[:500])
            log("  try %s failed (attention %s, train mode %s): %s\n%s" % (
                i, attn, train_mode, msg, traceback.format_exc()[-2500:]))
            first = first or msg
            continue
        for r in res:
            if attn:
                r["config"]["attn_implementation"] = attn
            if first:
                r["retried_because"] = first
        return res


# ----------------------------------------------------------------------------- attention (issue 15)

def attention(out, log):
    """A tiny causal self-attention block (F.scaled_dot_product_attention, or written out), its
    training step (loss and gradients) exported with torch.export, and two planted bugs.
    `--models ''` exports these alone."""
    import torch
    import torch.nn.functional as F

    class Attention(torch.nn.Module):
        def __init__(self, bug=None, explicit=False, d=16, heads=2):
            super().__init__()
            self.bug, self.heads, self.explicit = bug, heads, explicit
            # Three projections rather than one split three ways: `unbind`/`split` would stop
            # today's reader before the attention ops it is meant to exercise.
            self.q = torch.nn.Linear(d, d, bias=False)
            self.k = torch.nn.Linear(d, d, bias=False)
            self.v = torch.nn.Linear(d, d, bias=False)
            self.proj = torch.nn.Linear(d, d, bias=False)

        def forward(self, x):
            b, t, d = x.shape
            hd = d // self.heads
            q, k, v = (lin(x).view(b, t, self.heads, hd).transpose(1, 2) for lin in (self.q, self.k, self.v))
            if self.explicit:  # matmul, mask, softmax, matmul written out
                scale = 1.0 / hd if self.bug == "scale" else 1.0 / hd ** 0.5
                scores = torch.matmul(q, k.transpose(-2, -1)) * scale
                if self.bug != "mask":
                    causal = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
                    scores = scores.masked_fill(~causal, float("-inf"))
                y = torch.matmul(scores.softmax(dim=-1), v)
            elif self.bug == "scale":  # 1/d instead of 1/sqrt(d)
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=1.0 / hd)
            elif self.bug == "mask":  # the causal mask dropped
                y = F.scaled_dot_product_attention(q, k, v, is_causal=False)
            else:
                y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
            return self.proj(y.transpose(1, 2).reshape(b, t, d))

    adir = os.path.join(out, "attention_train")
    os.makedirs(adir, exist_ok=True)
    results, errors = [], []
    x = torch.randn(2, 8, 16)
    cases = [(bug, explicit, stem + ("_explicit" if explicit else "") + suffix)
             for explicit in (False, True) for bug, suffix in ((None, ""), ("scale", "_bad_scale"), ("mask", "_bad_mask"))
             for stem in ("attn",)]
    for bug, explicit, stem in cases:
        try:
            torch.manual_seed(0)  # the same weights for all
            m = Attention(bug, explicit)
            m.train()
            ep, capture, want, notes = capture_training(m, lambda m, x: m(x), lambda y, x: y.pow(2).mean(),
                                                        (x,), 1, log)
            entry = {"model": stem, "library": "own", "mode": "training", "torch": torch.__version__,
                     "capture": capture, "capture_notes": notes, "bug": bug,
                     "config": {"d": 16, "heads": 2, "input": [2, 8, 16], "loss": "mean of squares",
                                "attention": "written out (matmul, masked_fill, softmax, matmul)" if explicit
                                else "F.scaled_dot_product_attention"}}
            with torch.enable_grad():
                ref = ep.module()(x)
                # Is the joint graph or eager autograd off? Eager through the math backend too.
                from torch.nn.attention import SDPBackend, sdpa_kernel
                step = wrappers()[2](wrappers()[1](wrappers()[0](m, lambda m, x: m(x)),
                                                   lambda y, x: y.pow(2).mean(), 1))
                with sdpa_kernel([SDPBackend.MATH]):
                    math = step(x)
                entry["eager_default_vs_eager_math"] = output_diffs(want, math)
                entry["joint_vs_eager_math"] = output_diffs(ref, math)
                log("  %s: eager default vs math %s; joint vs math %s" % (
                    stem, entry["eager_default_vs_eager_math"], entry["joint_vs_eager_math"]))
                results.append(record(ep, os.path.join(adir, stem + ".pt2"), dict(entry, form="export"), want,
                                      (x,), log))
            for form, suffix, table in (("decomposed", "_decomposed", None),
                                        ("inductor decomposition table", "_inductor", "inductor")):
                try:
                    if table:
                        from torch._inductor.decomposition import select_decomp_table
                        dec = ep.run_decompositions(select_decomp_table())
                    else:
                        dec = ep.run_decompositions()
                    with torch.enable_grad():
                        results.append(record(dec, os.path.join(adir, stem + suffix + ".pt2"),
                                              dict(entry, form=form), ref, (x,), log))
                except Exception:
                    errors.append("attention %s %s failed:\n%s" % (stem, form, traceback.format_exc()[-2000:]))
                    log(errors[-1])
        except Exception:
            errors.append("attention %s failed:\n%s" % (stem, traceback.format_exc()[-2000:]))
            log(errors[-1])
    return results, errors


# ----------------------------------------------------------------------------- driver

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--models", default=",".join(DEFAULT_MODELS))
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--timeout", type=int, default=300)
    ap.add_argument("--one", nargs=2, metavar=("MODEL", "MODE"), help=argparse.SUPPRESS)
    ap.add_argument("--attention", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    if args.one or args.attention:
        tag = "_".join(args.one) if args.one else "attention"
        logf = open(os.path.join(args.out, tag + ".log"), "w")

        def log(s):
            print(s, flush=True)
            logf.write(s + "\n")
            logf.flush()
        res = {"results": [], "error": None}
        start = time.time()
        try:
            if args.attention:
                res["results"], errors = attention(args.out, log)
                res["error"] = "\n".join(errors)[-3000:] or None
            else:
                res["results"] = run_one(*args.one, args.out, log)
        except Exception:
            res["error"] = traceback.format_exc()[-3000:]
            log(res["error"])
        res["seconds"] = round(time.time() - start, 1)
        with open(os.path.join(args.out, tag + ".json"), "w") as f:
            json.dump(res, f, indent=1, default=str)
        return 0
    jobs = [["--one", m, mode] for m in args.models.split(",") if m for mode in args.modes.split(",")]
    jobs.append(["--attention"])
    procs, pending = [], list(jobs)
    t0 = time.time()
    while pending or procs:
        while pending and len(procs) < args.jobs:
            j = pending.pop(0)
            p = subprocess.Popen([sys.executable, os.path.abspath(__file__), "--out", args.out] + j,
                                 stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
            procs.append((j, p, time.time()))
        time.sleep(1)
        for item in list(procs):
            j, p, t = item
            if p.poll() is not None or time.time() - t > args.timeout:
                if p.poll() is None:
                    p.kill()
                    print("TIMEOUT", j, flush=True)
                print("done %s rc=%s %.0fs" % (" ".join(j), p.poll(), time.time() - t), flush=True)
                procs.remove(item)
    manifest, failures, attention_files = [], [], []
    with open(os.path.join(args.out, "log.txt"), "w") as logall:
        for j in jobs:
            tag = "_".join(j[1:]) if j[0] == "--one" else "attention"
            for ext in (".log",):
                p = os.path.join(args.out, tag + ext)
                if os.path.exists(p):
                    logall.write("==== %s\n%s\n" % (tag, open(p).read()))
                    os.remove(p)
            p = os.path.join(args.out, tag + ".json")
            if not os.path.exists(p):
                failures.append({"job": tag, "error": "no result (crashed or timed out)"})
                continue
            res = json.load(open(p))
            os.remove(p)
            (attention_files if tag == "attention" else manifest).extend(res["results"])
            if res["error"]:
                failures.append({"job": tag, "error": res["error"][-600:]})
    with open(os.path.join(args.out, "models.json"), "w") as f:
        json.dump({"models": manifest, "failures": failures}, f, indent=1, default=str)
    with open(os.path.join(args.out, "attention_train", "manifest.json"), "w") as f:
        json.dump(attention_files, f, indent=1, default=str)
    print("%d archives, %d attention archives, %d failures, %.0f s" % (
        len(manifest), len(attention_files), len(failures), time.time() - t0))
    for fl in failures:
        print("FAILED", fl["job"], fl["error"][-300:].replace("\n", " | "))
    return 0


if __name__ == "__main__":
    sys.exit(main())
