"""The models whose Inductor rewrites tools/inductor/grab.py captures: small random-init configs
(nothing is downloaded), dropout off so that the graphs are deterministic. Each builder returns
(module, example inputs, loss function for training)."""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class Block(nn.Module):
    """Our own pre-norm transformer block: RMSNorm, causal attention written out as
    matmul-softmax-matmul (the form Inductor's attention patterns look for), SwiGLU MLP."""

    def __init__(self, d=64, heads=4, ff=128, causal=True):
        super().__init__()
        self.heads, self.causal = heads, causal
        self.n1 = nn.Parameter(torch.ones(d))
        self.n2 = nn.Parameter(torch.ones(d))
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.gate = nn.Linear(d, ff, bias=False)
        self.up = nn.Linear(d, ff, bias=False)
        self.down = nn.Linear(ff, d, bias=False)

    @staticmethod
    def rmsnorm(x, w):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w

    def forward(self, x, attn_mask=None):
        b, t, d = x.shape
        q, k, v = self.qkv(self.rmsnorm(x, self.n1)).split(d, dim=-1)
        q, k, v = (z.view(b, t, self.heads, d // self.heads).transpose(1, 2) for z in (q, k, v))
        if attn_mask is not None:
            # An additive mask: the form of Inductor's masked attention pattern.
            scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.size(-1)) + attn_mask
        else:
            scores = torch.matmul(q, k.transpose(-2, -1)).div(float(d // self.heads) ** 0.5)
        if self.causal:
            mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
        att = scores.softmax(dim=-1).matmul(v)
        x = x + self.proj(att.transpose(1, 2).reshape(b, t, d))
        h = self.rmsnorm(x, self.n2)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


def block():
    return Block(), (torch.randn(2, 16, 64),), lambda out: out.pow(2).mean()


def block_nomask():
    """Unmasked attention: the exact matmul-div-softmax-matmul form of Inductor's first
    attention pattern, which it replaces by a fused scaled_dot_product_attention."""
    return Block(causal=False), (torch.randn(2, 16, 64),), lambda out: out.pow(2).mean()


def block_addmask():
    """Attention with an additive float mask input (a random bias, -inf above the diagonal):
    Inductor rewrites it into scaled_dot_product_attention with attn_mask (CPU: the flash kernel
    with a mask)."""
    mask = torch.randn(16, 16).masked_fill(torch.ones(16, 16, dtype=torch.bool).triu(1), float("-inf"))
    return Block(causal=False), (torch.randn(2, 16, 64), mask), lambda out: out.pow(2).mean()


def _hf(config_cls, model_cls, **cfg):
    config = config_cls(**cfg)
    config._attn_implementation = "eager"
    model = model_cls(config)
    return model


def gpt2():
    from transformers import GPT2Config, GPT2LMHeadModel
    m = _hf(GPT2Config, GPT2LMHeadModel, n_layer=1, n_embd=64, n_head=4, vocab_size=128,
            n_positions=32, resid_pdrop=0.0, embd_pdrop=0.0, attn_pdrop=0.0)
    return m, (torch.randint(0, 128, (2, 16)),), lambda out: out.logits.float().logsumexp(-1).mean()


def llama():
    from transformers import LlamaConfig, LlamaForCausalLM
    m = _hf(LlamaConfig, LlamaForCausalLM, hidden_size=64, intermediate_size=128,
            num_hidden_layers=1, num_attention_heads=4, num_key_value_heads=2, vocab_size=128,
            max_position_embeddings=64)
    return m, (torch.randint(0, 128, (2, 16)),), lambda out: out.logits.float().logsumexp(-1).mean()


def bert():
    from transformers import BertConfig, BertModel
    m = _hf(BertConfig, BertModel, hidden_size=64, num_hidden_layers=1, num_attention_heads=4,
            intermediate_size=128, vocab_size=128, max_position_embeddings=64,
            hidden_dropout_prob=0.0, attention_probs_dropout_prob=0.0)
    return m, (torch.randint(0, 128, (2, 16)),), lambda out: out.last_hidden_state.pow(2).mean()


def vit():
    import timm
    m = timm.create_model("vit_tiny_patch16_224", pretrained=False, img_size=32, patch_size=8,
                          depth=2, num_classes=10)
    return m, (torch.randn(2, 3, 32, 32),), lambda out: out.logsumexp(-1).mean()


def resnet():
    import timm
    m = timm.create_model("resnet18", pretrained=False, num_classes=10)
    return m, (torch.randn(2, 3, 32, 32),), lambda out: out.logsumexp(-1).mean()


MODELS = {"block": block, "block_nomask": block_nomask, "block_addmask": block_addmask, "gpt2": gpt2, "llama": llama, "bert": bert, "vit": vit, "resnet": resnet}
