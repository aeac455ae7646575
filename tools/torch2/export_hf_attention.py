"""Exports tiny randomly initialised Hugging Face decoders and encoders with torch.export as users
call it (`torch.export.export` then `torch.export.save`, no `run_decompositions`), once per
attention implementation, for issue 35 item 5 (tests/torch2/hf_export/):

    PYTHONUNBUFFERED=1 python3 tools/torch2/export_hf_attention.py --out /tmp/hf [--jobs 8]

(needs torch 2.x and transformers 5.x; the GPU machine has torch 2.11 and transformers 5.17;
nothing is downloaded: every model is built from a config with random weights, seed 0, the same
weights for every attention implementation of one architecture).

For each architecture and each `impl`:
- `eager`, `sdpa`: transformers' own implementations;
- `bad_scale`: sdpa with the softmax scale inverted (1/s instead of s);
- `bad_mask`: sdpa with the attention mask negated off the diagonal (a query sees the keys the
  mask hid and not the ones it showed; the diagonal stays, so that no row is fully masked).
The two bugs are registered as attention functions of their own (transformers'
AttentionInterface, with sdpa's mask interface), so the model code is the library's.

Files: ARCH_IMPL_inference.pt2 (the model in eval mode called as `model(input_ids, None)`: the
logits; the explicit `attention_mask=None` makes a None user input) and ARCH_IMPL_training.pt2
(the joint forward+backward graph of the loss, tools/corpus/export_corpus.py's
`capture_training`: a TrainStep calling `torch.autograd.grad` inside fails to export in torch 2.11),
and cf_*.pt2 (`control_flow`: the other higher-order ops). Sample inputs are stripped and node
metadata slimmed (export_corpus.py's `save_stripped`). manifest.json records each file's
configuration, the higher-order ops in it, the exported program against eager execution
(`max_diff`), and each implementation's eager outputs against eager attention's (`vs_eager`: how
far torch itself puts them apart).

On the device machine (the `run` tool sends the session's main checkout: copy tools/torch2 and
tools/corpus into an ignored folder such as build_hf_dev/tools/ and name it in `carry`):
`cd build_hf_dev && python3 tools/torch2/export_hf_attention.py --out /tmp/hf --modes inference`
then `tar czf $OUT/hf.tgz -C /tmp/hf .` (about 55 s; the same with `--modes training`).
"""
import argparse
import json
import os
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "corpus"))

IMPLS = ("eager", "sdpa", "bad_scale", "bad_mask")
SEQ, BATCH, VOCAB = 8, 2, 32


def configs():
    """(config class, model class, kwargs): one layer, hidden 32, 4 heads of 8, 2 key/value heads
    where the architecture has grouped queries."""
    import transformers as t
    dec = dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
               num_key_value_heads=2, vocab_size=VOCAB, max_position_embeddings=32, tie_word_embeddings=False)
    return {
        "llama": (t.LlamaConfig, t.LlamaForCausalLM, dec),
        # sliding_window below the sequence length: the window mask matters.
        "mistral": (t.MistralConfig, t.MistralForCausalLM, dict(dec, sliding_window=4)),
        "qwen2": (t.Qwen2Config, t.Qwen2ForCausalLM, dec),
        # Gemma2 as released caps the attention logits (50.0), which sdpa cannot do:
        # transformers warns that sdpa then differs from eager. gemma2 keeps the cap (eager and
        # sdpa truly differ); gemma2_nocap sets it to None.
        "gemma2": (t.Gemma2Config, t.Gemma2ForCausalLM, dict(dec, head_dim=8, sliding_window=4)),
        "gemma2_nocap": (t.Gemma2Config, t.Gemma2ForCausalLM,
                         dict(dec, head_dim=8, sliding_window=4, attn_logit_softcapping=None)),
        "gpt_neox": (t.GPTNeoXConfig, t.GPTNeoXForCausalLM,
                     dict(hidden_size=32, intermediate_size=64, num_hidden_layers=1, num_attention_heads=4,
                          vocab_size=VOCAB, max_position_embeddings=32, tie_word_embeddings=False,
                          rotary_pct=0.5)),
        "gpt2": (t.GPT2Config, t.GPT2LMHeadModel,
                 dict(n_layer=1, n_embd=32, n_head=4, vocab_size=VOCAB, n_positions=32, tie_word_embeddings=False,
                      resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)),
        "bert": (t.BertConfig, t.BertForMaskedLM,
                 dict(hidden_size=32, num_hidden_layers=1, num_attention_heads=4, intermediate_size=64,
                      vocab_size=VOCAB, max_position_embeddings=32, hidden_dropout_prob=0.0,
                      attention_probs_dropout_prob=0.0, tie_word_embeddings=False)),
    }


def register_bugs():
    """The planted bugs as attention implementations of their own, on top of sdpa's."""
    import torch
    from transformers import AttentionInterface
    from transformers.integrations.sdpa_attention import sdpa_attention_forward
    from transformers.masking_utils import AttentionMaskInterface, sdpa_mask

    def bad_scale(module, query, key, value, attention_mask, scaling=None, **kw):
        s = scaling if scaling is not None else query.shape[-1] ** -0.5
        return sdpa_attention_forward(module, query, key, value, attention_mask, scaling=1.0 / s, **kw)

    def bad_mask(module, query, key, value, attention_mask, **kw):
        L, S = query.shape[-2], key.shape[-2]
        if attention_mask is None:  # sdpa's causal path (no padding): the mask is_causal means
            keep = torch.ones(L, S, dtype=torch.bool, device=query.device).tril(S - L)
            if not getattr(module, "is_causal", True):
                keep = torch.ones_like(keep)
        elif attention_mask.dtype == torch.bool:
            keep = attention_mask
        else:
            keep = attention_mask == 0
        eye = torch.ones(L, S, dtype=torch.bool, device=query.device).tril(S - L).triu(S - L)
        kw.pop("is_causal", None)
        return sdpa_attention_forward(module, query, key, value, (~keep) | eye, is_causal=False, **kw)

    for name, fn in (("bad_scale", bad_scale), ("bad_mask", bad_mask)):
        AttentionInterface.register(name, fn)
        AttentionMaskInterface.register(name, sdpa_mask)


def build(arch, impl):
    import torch
    cfg_cls, model_cls, kw = configs()[arch]
    torch.manual_seed(0)
    config = cfg_cls(**kw)
    config._attn_implementation = impl
    model = model_cls(config)
    torch.manual_seed(0)
    ids = torch.randint(0, VOCAB, (BATCH, SEQ))
    return model, ids, dict(kw, arch=model_cls.__name__, attn_implementation=impl)


def modules():
    import torch

    class Forward(torch.nn.Module):
        """model(input_ids, attention_mask) -> logits, as a user calls it."""

        def __init__(self, model):
            super().__init__()
            self.model = model

        def forward(self, ids, mask):
            return self.model(input_ids=ids, attention_mask=mask).logits

    return Forward


def _same_token_loss(logits, ids):
    import torch.nn.functional as F
    return F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids.reshape(-1))


def hops(ep):
    import torch
    out = {}
    for gm in ep.graph_module.modules():
        if not isinstance(gm, torch.fx.GraphModule):
            continue
        for n in gm.graph.nodes:
            if n.op == "call_function" and isinstance(n.target, torch._ops.HigherOrderOperator):
                out[n.target.name()] = out.get(n.target.name(), 0) + 1
    return out


def diff(a, b):
    import torch
    if isinstance(a, torch.Tensor):
        a, b = (a,), (b,)
    d = 0.0
    for x, y in zip(a, b):
        if (x is None) != (y is None):
            return "None against a tensor"
        if x is not None:
            d = max(d, (x.double() - y.double()).abs().max().item())
    return d


MODES = ["inference", "training"]


def export_arch(arch, out, log):
    import torch
    from export_corpus import _lm_loss, capture_training, save_stripped
    register_bugs()
    Forward = modules()
    results, eager_out = [], {}
    for impl in IMPLS:
        for mode in MODES:
            entry = {"arch": arch, "impl": impl, "mode": mode, "torch": torch.__version__}
            t0 = time.time()
            try:
                import transformers
                entry["transformers"] = transformers.__version__
                model, ids, cfg = build(arch, impl)
                entry["config"] = cfg
                if mode == "inference":
                    model.eval()
                    mod, args = Forward(model), (ids, None)
                    with torch.no_grad():
                        want = mod(*args)
                else:
                    model.train()
                    args = (ids,)
                    ep, entry["capture"], want, notes = capture_training(
                        model, lambda m, ids: m(input_ids=ids).logits, _lm_loss if arch != "bert" else _same_token_loss,
                        args, 1, log)
                    entry["capture_notes"] = notes
                if impl == "eager":
                    eager_out[mode] = want
                elif mode in eager_out:
                    entry["vs_eager"] = diff(want, eager_out[mode])
                if mode == "inference":
                    ep = torch.export.export(mod, args, strict=False)
                entry["hops"] = hops(ep)
                try:
                    with torch.no_grad() if mode == "inference" else torch.enable_grad():
                        entry["max_diff"] = diff(ep.module()(*args), want)
                except Exception as e:
                    entry["max_diff"] = "not run: %s: %s" % (type(e).__name__, str(e)[:200])
                path = os.path.join(out, "%s_%s_%s.pt2" % (arch, impl, mode))
                entry.update(save_stripped(ep, path))
                entry["file"] = os.path.basename(path)
                entry["ops"] = sorted({str(n.target) for n in ep.graph.nodes if n.op == "call_function"})
            except Exception as e:
                entry["error"] = "%s: %s" % (type(e).__name__, str(e)[:600])
                log(traceback.format_exc()[-3000:])
            entry["seconds"] = round(time.time() - t0, 1)
            log("%s %s %s: %s" % (arch, impl, mode, {k: entry.get(k) for k in
                                                     ("file", "hops", "max_diff", "vs_eager", "error", "bytes")}))
            results.append(entry)
    return results


def control_flow(out, log):
    """Small programs whose torch.export graphs hold the other higher-order ops, each with a
    plain twin computing the same (cf_NAME.pt2 and cf_NAME_plain.pt2) and, where the op's
    subgraph matters, a twin with a planted bug (cf_NAME_bug.pt2)."""
    import torch
    from export_corpus import save_stripped
    from torch._higher_order_ops.map import map as hop_map
    from torch._higher_order_ops.while_loop import while_loop

    def region(f):
        nested = getattr(torch.compiler, "nested_compile_region", None)
        return nested(f) if nested else f

    @region
    def block(x, w):
        return torch.tanh(x @ w) * 2.0

    def cond_const(x, w):  # a predicate torch.export cannot see through, but constant
        return torch.cond(torch.ones((), dtype=torch.bool), lambda x, w: x @ w, lambda x, w: x - w, (x, w))

    def cond_data(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: x @ w, lambda x, w: x - w, (x, w))

    def cond_data_bug(x, w):
        return torch.cond(x.sum() > 0, lambda x, w: x @ w, lambda x, w: x + w, (x, w))

    def map_rows(x, w):
        return hop_map(lambda xi, w: torch.relu(xi @ w), x.unsqueeze(1), w).squeeze(1)

    def map_rows_bug(x, w):
        return hop_map(lambda xi, w: torch.sigmoid(xi @ w), x.unsqueeze(1), w).squeeze(1)

    def loop(x, w):
        return while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, y @ w), (torch.zeros((), dtype=torch.int64), x))[1]

    def subgraph(x, w):
        return block(block(x, w), w)

    def subgraph_bug(x, w):
        return block(block(x, w), w.t())

    def autocast_off(x, w):
        with torch.autocast("cpu", enabled=False):
            return (x @ w).exp()

    def autocast_on(x, w):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return x @ w

    def grad_off(x, w):
        with torch.no_grad():
            y = x @ w
        return y + x

    plain = {
        "cond_const": lambda x, w: x @ w, "cond_data": cond_data, "map_rows": lambda x, w: torch.relu(x @ w),
        "loop": lambda x, w: x @ w @ w @ w, "subgraph": lambda x, w: torch.tanh(torch.tanh(x @ w) * 2.0 @ w) * 2.0,
        "autocast_off": lambda x, w: (x @ w).exp(),
        "autocast_on": lambda x, w: (x.bfloat16() @ w.bfloat16()), "grad_off": lambda x, w: x @ w + x,
    }
    progs = {"cond_const": cond_const, "cond_data": cond_data, "cond_data_bug": cond_data_bug, "map_rows": map_rows,
             "map_rows_bug": map_rows_bug, "loop": loop, "subgraph": subgraph, "subgraph_bug": subgraph_bug,
             "autocast_off": autocast_off, "autocast_on": autocast_on, "grad_off": grad_off}
    progs.update({k + "_plain": v for k, v in plain.items()})

    class M(torch.nn.Module):
        def __init__(self, f):
            super().__init__()
            self.f = f

        def forward(self, x, w):
            return self.f(x, w)

    class GradStep(torch.nn.Module):
        """loss and torch.autograd.grad of it for x, w and u, which the loss does not use: a
        None output."""

        def __init__(self, act):
            super().__init__()
            self.act = act

        def forward(self, x, w, u):
            loss = (self.act(x @ w) ** 2).mean()
            return (loss, *torch.autograd.grad(loss, [x, w, u], grad_outputs=torch.ones_like(loss), allow_unused=True))

    results = []
    torch.manual_seed(0)
    x, w = torch.randn(4, 4), torch.randn(4, 4)
    for name, act in (("grad_none", torch.tanh), ("grad_none_bug", torch.sigmoid)):
        entry = {"arch": "cf", "impl": name, "mode": "training", "torch": torch.__version__}
        try:
            xs = (x.clone().requires_grad_(), w.clone().requires_grad_(), torch.randn(4).requires_grad_())
            ep = torch.export.export(GradStep(act), xs, strict=False)
            entry["outputs"] = [str(o.arg) for o in ep.graph_signature.output_specs]
            path = os.path.join(out, "cf_%s.pt2" % name)
            entry.update(save_stripped(ep, path))
            entry["file"] = os.path.basename(path)
        except Exception as e:
            entry["error"] = "%s: %s" % (type(e).__name__, str(e)[:600])
            log(traceback.format_exc()[-3000:])
        log("cf %s: %s" % (name, {k: entry.get(k) for k in ("outputs", "error")}))
        results.append(entry)
    for name, f in progs.items():
        entry = {"arch": "cf", "impl": name, "mode": "inference", "torch": torch.__version__}
        try:
            ep = torch.export.export(M(f), (x, w), strict=False)
            entry["hops"] = hops(ep)
            entry["max_diff"] = diff(ep.module()(x, w), f(x, w))
            path = os.path.join(out, "cf_%s.pt2" % name)
            entry.update(save_stripped(ep, path))
            entry["file"] = os.path.basename(path)
        except Exception as e:
            entry["error"] = "%s: %s" % (type(e).__name__, str(e)[:600])
            log(traceback.format_exc()[-3000:])
        log("cf %s: %s" % (name, {k: entry.get(k) for k in ("hops", "max_diff", "error")}))
        results.append(entry)
    return results


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", required=True)
    ap.add_argument("--jobs", type=int, default=8)
    ap.add_argument("--archs", default="")
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    MODES[:] = args.modes.split(",")
    os.makedirs(args.out, exist_ok=True)
    if args.one:
        logf = open(os.path.join(args.out, args.one + ".log"), "w")

        def log(s):
            print(s, flush=True)
            logf.write(s + "\n")
            logf.flush()
        try:
            res = control_flow(args.out, log) if args.one == "cf" else export_arch(args.one, args.out, log)
        except Exception:
            res = [{"arch": args.one, "error": traceback.format_exc()[-3000:]}]
            log(res[0]["error"])
        with open(os.path.join(args.out, args.one + ".json"), "w") as f:
            json.dump(res, f, indent=1, default=str)
        return 0
    archs = [a for a in (args.archs.split(",") if args.archs else list(configs().keys()) + ["cf"]) if a]
    procs = [subprocess.Popen([sys.executable, os.path.abspath(__file__), "--out", args.out, "--modes", args.modes, "--one", a],
                              stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT) for a in archs]
    for p in procs:
        try:
            p.wait(timeout=400)
        except subprocess.TimeoutExpired:
            p.kill()
    manifest = []
    with open(os.path.join(args.out, "log.txt"), "w") as logall:
        for a in archs:
            for ext in (".log", ".json"):
                p = os.path.join(args.out, a + ext)
                if not os.path.exists(p):
                    manifest.append({"arch": a, "error": "no result (killed?)"})
                    continue
                if ext == ".log":
                    logall.write("==== %s\n%s\n" % (a, open(p).read()))
                else:
                    manifest.extend(json.load(open(p)))
                os.remove(p)
    with open(os.path.join(args.out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=1, default=str)
    for e in manifest:
        print(e.get("arch"), e.get("impl"), e.get("mode"), e.get("hops"), e.get("max_diff"), e.get("vs_eager"),
              e.get("none_outputs"), e.get("bytes"), (e.get("error") or "")[:300])
    return 0


if __name__ == "__main__":
    sys.exit(main())
