"""nll_loss with ignore_index targets: F.nll_loss against the masked gather that torch's
decomposition of nll_loss_forward computes (torch/_decomp/decompositions.py, nll_loss_forward:
targets equal to ignore_index are replaced by 0 for the gather, weighted 0, and left out of the
mean's count)."""
import torch
import torch.nn.functional as F

IGNORE = -100


def example_inputs():
    torch.manual_seed(0)
    return torch.log_softmax(torch.randn(6, 5), dim=-1), torch.tensor([IGNORE, 3, 4, IGNORE, 2, 0])


def reference(logp, target):
    return F.nll_loss(logp, target, ignore_index=IGNORE)


def masked_nll(logp, target, mask_ignored=True):
    # mask_ignored: leave ignore_index rows out (False: the twin gathers them at class 0)
    keep = target != IGNORE
    safe = torch.where(keep, target, torch.zeros_like(target))
    picked = -logp.gather(1, safe[:, None]).squeeze(1)
    if not mask_ignored:
        return picked.mean()
    weight = keep.to(logp.dtype)
    return (picked * weight).sum() / weight.sum()


def production(logp, target):
    return masked_nll(logp, target)
