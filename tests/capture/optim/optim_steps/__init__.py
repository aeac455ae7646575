"""One step of a torch 1.13 optimizer, as the pair files of tests/capture/optim call it.

torch.optim's step functions (torch/optim/adam.py: `_single_tensor_adam`, the for-loop form, and
`_multi_tensor_adam`, the foreach form) update the parameters and the optimizer state in place and
read the gradients, which belong to the caller (`p.grad`). A pair calls both forms the way
`Optimizer.step` does: on its own copies of the parameters and the state (so both start from the
same values and the updates are returned), on the caller's gradients as they are (so a form that
writes into `p.grad` modifies its input), and with the values the optimizer keeps as tensors but
the step reads as numbers (step counters, ASGD's eta and mu) created in the step, as the state of
a given step (the step reads them with `.item()`)."""
import torch

SHAPES = ((3,), (2, 2))


def inputs(n_state, seed=0, nonnegative=()):
    """Parameters, gradients and ``n_state`` state lists, one tensor of each of SHAPES per list;
    the state lists numbered in ``nonnegative`` (a running square) hold no negative values."""
    torch.manual_seed(seed)
    out = []
    for k in range(2 + n_state):
        for s in SHAPES:
            t = torch.randn(s)
            out.append(t.abs() if k - 2 in nonnegative else t)
    return tuple(out)


def step(fn, params, grads, lists, **hyper):
    """``fn(params, grads, *lists, **hyper)`` on copies of ``params`` and of each state list in
    ``lists`` (a tuple of tensors); a list of numbers in ``lists`` is a list of one-element
    tensors the step creates, [] an empty list. Returns the parameters, the state and the created
    tensors after the step."""
    params = [p.clone() for p in params]
    state = []
    for entry in lists:
        if isinstance(entry, tuple):
            state.append([t.clone() for t in entry])
        else:
            state.append([torch.tensor(float(v)) for v in entry])
    fn(params, list(grads), *state, **hyper)
    return tuple(params) + tuple(t for s in state for t in s)
