#!/usr/bin/env python3
"""`verify --repro DIR` (Note [Counterexamples a user can run] in src/cli/repro.h): a planted bug's
counterexample is written as counterexample.json and repro.py; repro.py shows the difference on
the pair's own code (exit 1) and saves the inputs for torch.load, and agrees on the fixed code
(exit 0); an equivalent pair writes nothing and says so; a folder that cannot be made is exit 3."""
import json
import os
import tempfile

from e2e_util import Checker, args, run

a = args()
c = Checker("verify --repro")
pairs = os.path.join(a.source_dir, "tests/capture/pairs")
buggy, fixed = (os.path.join(pairs, n) for n in ("layernorm_train__bias_grad.py", "layernorm_train.py"))
python = "/usr/bin/python3"  # Debian's: it sees python3-torch

with tempfile.TemporaryDirectory() as d:
    out = os.path.join(d, "repro")
    p = run([a.torchtv, "verify", buggy, "--repro", out, "--no-cache"])
    c.check(p.returncode == 1, f"the planted bug: exit {p.returncode}\n{p.stdout}{p.stderr}")
    c.check("counterexample written" in p.stderr, "stderr does not say where the counterexample went\n" + p.stderr)
    script = os.path.join(out, "repro.py")
    if c.check(os.path.isfile(script) and os.path.isfile(os.path.join(out, "counterexample.json")), "no repro files"):
        with open(os.path.join(out, "counterexample.json")) as f:
            request = json.load(f)
        c.check([i["name"] for i in request["inputs"]] == ["x", "w", "b"], f"inputs {request['inputs']}")
        c.check(any(o["name"] == "grad_b" for o in request["outputs"]), "grad_b is not among the outputs to run")
        r = run([python, script], cwd=d)
        c.check(r.returncode == 1, f"repro.py on the buggy code: exit {r.returncode}\n{r.stdout}{r.stderr}")
        c.check("output grad_b: differs" in r.stdout, "repro.py does not show grad_b's difference\n" + r.stdout)
        c.check(os.path.isfile(os.path.join(out, "inputs.pt")), "repro.py saved no inputs.pt")
        r = run([python, script, fixed], cwd=d)
        c.check(r.returncode == 0 and "output grad_b: agrees" in r.stdout,
                f"repro.py on the fixed code: exit {r.returncode}\n{r.stdout}{r.stderr}")

    quiet = os.path.join(d, "none")
    p = run([a.torchtv, "verify", fixed, "--repro", quiet])
    c.check(p.returncode == 0 and not os.path.exists(quiet), f"an equivalent pair: exit {p.returncode}, wrote {quiet}")
    c.check("no counterexample with inputs to write" in p.stderr, "an equivalent pair does not say why nothing was written\n" + p.stderr)

    blocker = os.path.join(d, "file")
    open(blocker, "w").close()
    p = run([a.torchtv, "verify", buggy, "--repro", os.path.join(blocker, "sub")])
    c.check(p.returncode == 3 and "cannot create the --repro folder" in p.stderr, f"an unwritable folder: exit {p.returncode}\n{p.stderr}")
c.done()
