"""Megatron-LM's vocab-parallel cross entropy on one tensor-parallel rank, against F.cross_entropy.

Follows NVIDIA/Megatron-LM megatron/core/tensor_parallel/cross_entropy.py:
_VocabParallelCrossEntropy.forward/backward and the VocabParallelCrossEntropy helpers
(calculate_logits_max, calculate_predicted_logits, calculate_cross_entropy_loss,
prepare_gradient_calculation_operands, calculate_gradients), at world size 1: the all-reduces are
identities and this rank owns the vocab range [0, V). The logits are upcast with .float() on
purpose (calculate_logits_max); the per-token losses are averaged, as a training loop does, so the
backward's grad_output is 1/N per token. Also used with label smoothing by
megatron_vocab_xent_smoothing.py.

Megatron's kernel has no ignore_index: a target outside this rank's vocab range contributes a
predicted logit of 0 and still counts in the mean (its callers mask padding with a loss mask
afterwards, pretrain_gpt.py's loss_func). F.cross_entropy skips targets equal to its default
ignore_index -100 and averages over the rest, so on such a target the two truly differ, and
torchtv refutes the pair there (target [0, -100, 0, 0, 0, 0]: 1.6245 against 1.6220). The pair
therefore declares the domain Megatron's code is written for, every target a class of this vocab;
the verdict names it as the user's assumption."""
import torch
import torch.nn.functional as F

MODE = "train_step"
ASSUME = {"target": "in [0, 5)"}  # the classes; no ignore_index (see the docstring)


def example_inputs():
    torch.manual_seed(0)
    return torch.randn(6, 5, requires_grad=True), torch.tensor([0, 3, 4, 1, 2, 3])


def reference(logits, target):
    return F.cross_entropy(logits, target)


def megatron_vocab_parallel_xent(logits, target, label_smoothing=0.0, bug="none"):
    """(mean loss, gradient of the logits) as _VocabParallelCrossEntropy computes them on one rank.
    bug: "none", or the planted bug of a twin: "target_row" subtracts the target's one-hot at
    another row's target (a swapped index in calculate_gradients); "smoothing_scale" is set by the
    caller (it passes torch's smoothing where Megatron's K/(K-1) convention wants another)."""
    dtype = logits.dtype
    x = logits.float()  # calculate_logits_max: high precision on purpose
    x = x - x.max(dim=-1)[0].unsqueeze(-1)
    vocab_start, vocab_end = 0, x.size(-1)
    target_mask = (target < vocab_start) | (target >= vocab_end)
    masked_target = (target - vocab_start).masked_fill(target_mask, 0)
    rows = torch.arange(x.size(0))
    predicted = x[rows, masked_target].masked_fill(target_mask, 0.0)
    exp_x = torch.exp(x)
    sum_exp = exp_x.sum(dim=-1)
    loss = torch.log(sum_exp) - predicted
    softmax = exp_x / sum_exp.unsqueeze(-1)
    vocab_size = x.size(-1)
    smoothing = label_smoothing * vocab_size / (vocab_size - 1)
    if label_smoothing > 0:
        loss = (1.0 - smoothing) * loss - smoothing * torch.log(softmax).mean(dim=-1)
    # backward, with grad_output = 1/N per token (the mean over tokens)
    grad_output = torch.ones_like(loss) / loss.numel()
    softmax_update = 1.0 - target_mask.float()
    grad = softmax.clone()
    hit = masked_target.flip(0) if bug == "target_row" else masked_target
    grad[rows, hit] -= (1.0 - smoothing) * softmax_update
    if label_smoothing > 0:
        grad = grad - smoothing / vocab_size
    grad = grad * grad_output.unsqueeze(-1)
    return loss.mean().to(dtype), grad.to(dtype)


def production(logits, target):
    return megatron_vocab_parallel_xent(logits, target)
