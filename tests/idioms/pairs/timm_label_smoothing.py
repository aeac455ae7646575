"""timm's LabelSmoothingCrossEntropy against F.cross_entropy with label_smoothing.

Follows huggingface/pytorch-image-models timm/loss/cross_entropy.py,
`LabelSmoothingCrossEntropy.forward`: log_softmax, nll = -gather(target), smooth = -mean over
classes, confidence * nll + smoothing * smooth, mean over the batch. timm has no ignore_index, so
the pair declares its targets to be classes (F.cross_entropy skips -100)."""
import torch
import torch.nn.functional as F

MODE = "forward"
SMOOTHING = 0.1
ASSUME = {"target": "in [0, 5)"}


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(4, 5), torch.tensor([0, 3, 4, 1])


def reference(x, target):
    return F.cross_entropy(x, target, label_smoothing=SMOOTHING)


def label_smoothing_cross_entropy(x, target, smoothing=SMOOTHING, spread=None):
    confidence = 1.0 - smoothing
    logprobs = F.log_softmax(x, dim=-1)
    nll_loss = -logprobs.gather(dim=-1, index=target.unsqueeze(1)).squeeze(1)
    smooth_loss = -logprobs.mean(dim=-1) if spread is None else -logprobs.sum(dim=-1) / spread
    loss = confidence * nll_loss + smoothing * smooth_loss
    return loss.mean()


def production(x, target):
    return label_smoothing_cross_entropy(x, target)
