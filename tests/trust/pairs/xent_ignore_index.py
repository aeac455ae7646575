"""Cross-entropy with ignore_index targets: F.cross_entropy against a hand-written loss and
gradient that mask the ignored rows, as Megatron's and HuggingFace's loss code do.

The targets hold ignore_index (-100, torch's default) twice; both sides skip those rows and
average over the others (torch's reduction='mean' divides by the number of targets kept)."""
import torch
import torch.nn.functional as F

MODE = "train_step"
IGNORE = -100


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(6, 5, requires_grad=True), torch.tensor([1, IGNORE, 4, 0, IGNORE, 2])


def reference(logits, target):
    return F.cross_entropy(logits, target, ignore_index=IGNORE)


def masked_xent(logits, target, count_ignored=False):
    # count_ignored: divide by every row, the ignored ones too (the twin's bug)
    keep = target != IGNORE
    safe = torch.where(keep, target, torch.zeros_like(target))
    logp = torch.log_softmax(logits, dim=-1)
    picked = logp.gather(1, safe[:, None]).squeeze(1)
    weight = keep.to(logits.dtype)
    count = torch.full_like(weight.sum(), target.numel()) if count_ignored else weight.sum()
    loss = -(picked * weight).sum() / count
    onehot = torch.zeros_like(logits).scatter(1, safe[:, None], 1.0)
    grad = (torch.softmax(logits, dim=-1) - onehot) * weight[:, None] / count
    return loss, grad


def production(logits, target):
    return masked_xent(logits, target)
