"""e2e/package: the Debian package, installed and used from outside the checkout (issue 37).

Builds torchtv_<version>_amd64.deb from the existing build tree (cpack; nothing is rebuilt),
installs it with dpkg (apt-get for missing dependencies), and runs the installed /usr/bin/torchtv
in a temporary folder on pair files written there, with the source and build trees hidden by an
empty tmpfs in a private mount namespace (unshare -m), so that nothing can come from the
checkout: `verify` (capture by the installed Python package), `check` on a .tvir pair and on
TorchScript files (the LibTorch module from /usr/lib/torchtv), `python3 -m torchtv` and
`import torchtv` from the system Python, `pip install` of pyproject.toml into a fresh folder,
and the composite action's steps (action.yml) on a scratch git repository. Needs root (dpkg); skipped with a message otherwise. Removes the package
again when it was not installed before."""
import argparse
import json
import os
import re
import shutil
import sys
import tempfile

import yaml  # Debian's python3-yaml: reads action.yml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from e2e_util import Checker, run  # noqa: E402

SKIP = 77  # SKIP_RETURN_CODE in tests/CMakeLists.txt

EQUIVALENT_PAIR = '''import torch

def example_inputs():
    return (torch.randn(4, 8), torch.randn(8))

def reference(x, w):
    return torch.softmax(x * w, dim=-1)

def production(x, w):
    y = x * w
    e = torch.exp(y - y.amax(dim=-1, keepdim=True))
    return e / e.sum(dim=-1, keepdim=True)
'''
BUGGY_PAIR = EQUIVALENT_PAIR.replace("e / e.sum(dim=-1, keepdim=True)", "e / (e.sum(dim=-1, keepdim=True) + 1e-3)")

# A user's repository: its own code, pair files next to it, a manifest (section 5).
USER_CODE = '''import torch

def fast_silu(x):
    return x * torch.sigmoid(x)
'''
USER_PAIR = '''import torch
from fastops import fast_silu

def example_inputs():
    return (torch.randn(16),)

def reference(x):
    return torch.nn.functional.silu(x)

def production(x):
    return fast_silu(x)
'''
USER_MANIFEST = '''[[pair]]
name = "silu"
pair = "ops/silu_pair.py"

[[pair]]
name = "silu-bug"
pair = "ops/silu_bug_pair.py"
'''

API_SCRIPT = '''import torch, torchtv
r = torchtv.verify(lambda x: torch.relu(x) * 2, lambda x: torch.clamp(x, min=0) + torch.clamp(x, min=0),
                   (torch.randn(5),))
print(torchtv.__file__)
print(r.verdict)
'''


def clean_env():
    """The environment of a user who never saw the checkout."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("TORCHTV_") and k != "PYTHONPATH"}
    env["TORCHTV_CACHE"] = "off"  # Note [Proof cache]: no test uses the user's cache
    env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    return env


def hidden(paths, argv):
    """argv run with each of `paths` covered by an empty tmpfs (a private mount namespace)."""
    mounts = " && ".join("mount -t tmpfs none '%s'" % p for p in paths)
    return ["unshare", "-m", "sh", "-c", mounts + ' && exec "$@"', "sh"] + argv


def expand(text, values):
    """GitHub's ${{ ... }} expressions of action.yml: names and `a || b`, from `values`."""
    def one(m):
        for name in m.group(1).split("||"):
            name = name.strip()
            if name not in values:
                raise KeyError("action.yml uses ${{ %s }}, which this test does not provide" % name)
            if values[name]:
                return values[name]
        return ""
    return re.sub(r"\$\{\{\s*(.*?)\s*\}\}", one, text)


def run_action(c, a, tmp, deb, hide, env):
    """Runs the `run:` steps of action.yml as a runner would (bash -eo pipefail, inputs and
    GITHUB_OUTPUT) in a scratch git repository; the `uses:` steps (cache, uploads) are GitHub's,
    so only the paths they name are checked."""
    action_dir = os.path.join(tmp, "action")  # where a runner checks out OWNER/torchtv@REF
    os.makedirs(os.path.join(action_dir, "scripts"))
    shutil.copy(os.path.join(a.source_dir, "action.yml"), action_dir)
    shutil.copy(os.path.join(a.source_dir, "scripts", "sarif_annotations.py"), os.path.join(action_dir, "scripts"))
    with open(os.path.join(action_dir, "action.yml")) as f:
        action = yaml.safe_load(f)
    repo = os.path.join(tmp, "scratch-repo")
    os.makedirs(os.path.join(repo, "ops"))
    files = {"ops/fastops.py": USER_CODE, "ops/silu_pair.py": USER_PAIR,
             "ops/silu_bug_pair.py": USER_PAIR.replace("return fast_silu(x)", "return fast_silu(x) * 1.001"),
             "torchtv-ci.toml": USER_MANIFEST}
    for name, text in files.items():
        with open(os.path.join(repo, name), "w") as f:
            f.write(text)
    git_env = dict(env, GIT_AUTHOR_NAME="t", GIT_AUTHOR_EMAIL="t@t", GIT_COMMITTER_NAME="t", GIT_COMMITTER_EMAIL="t@t")
    for cmd in (["git", "init", "-q"], ["git", "add", "."], ["git", "commit", "-q", "-m", "scratch"]):
        run(cmd, cwd=repo, env=git_env)
    inputs = {k: str(v.get("default", "")) for k, v in action.get("inputs", {}).items()}
    inputs.update({"manifest": "torchtv-ci.toml", "deb-url": "file://" + deb})
    values = {"inputs." + k: v for k, v in inputs.items()}
    # A pull request from a fork: the action's default sandbox ("auto") captures under --sandbox.
    values.update({"github.action_path": action_dir, "github.sha": "0" * 40, "runner.os": "Linux",
                   "github.event.pull_request.head.repo.fork": "true"})
    output_file = os.path.join(tmp, "github_output")
    runner_temp = os.path.join(tmp, "runner-temp")
    os.makedirs(runner_temp)
    annotations, step_exits = "", []
    for step in action["runs"]["steps"]:
        if "uses" in step:
            if step["uses"].startswith("actions/cache@"):  # restores the cache: nothing to exist before
                c.check(expand(step["with"]["path"], values) == inputs["cache-file"], "the cache step keeps another file")
                continue
            for key in ("path", "sarif_file"):  # uploads: what they send must have been written
                if key in step.get("with", {}):
                    path = expand(step["with"][key], values)
                    c.check(os.path.exists(os.path.join(repo, path)),
                            "action step %r names %s, which the steps before did not write" % (step["name"], path))
            continue
        condition = step.get("if")
        c.check(condition in (None, "always()"), "action step %r: condition %r unknown to this test" % (step["name"], condition))
        open(output_file, "w").close()
        step_env = dict(env, GITHUB_OUTPUT=output_file, RUNNER_TEMP=runner_temp, GITHUB_WORKSPACE=repo)
        step_env.update({k: expand(str(v), values) for k, v in step.get("env", {}).items()})
        script = os.path.join(runner_temp, "step.sh")
        with open(script, "w") as f:
            f.write(expand(step["run"], values))
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", script]
        r = run(hidden(hide, argv) if hide else argv, env=step_env, cwd=repo, timeout=900)
        step_exits.append((step["name"], r.returncode))
        if step.get("name", "").startswith("Annotate"):
            annotations = r.stdout
        with open(output_file) as f:
            for line in f:
                key, _, value = line.strip().partition("=")
                values["steps.%s.outputs.%s" % (step.get("id"), key)] = value
    # The scratch repository's bug fails the job with exit 1 (not_equivalent); every other step passes.
    c.check(step_exits and step_exits[-1][1] == 1 and all(code == 0 for _, code in step_exits[:-1]),
            "action steps exited %s (want 0 for each, 1 for the last)" % step_exits)
    c.check(values.get("steps.ci.outputs.exit-code") == "1",
            "exit-code output %r, want 1" % values.get("steps.ci.outputs.exit-code"))
    c.check(re.search(r"^::error file=ops/silu_bug_pair\.py,line=\d+,title=torchtv TTV001::silu-bug", annotations, re.M),
            "no annotation at ops/silu_bug_pair.py: %r" % annotations)
    c.check("silu:" not in annotations.replace("silu-bug:", ""), "the equivalent pair was annotated: %r" % annotations)
    cache = os.path.join(repo, inputs["cache-file"])
    c.check(os.path.isfile(cache) and os.path.getsize(cache) > 0, "the proof cache %s was not written" % cache)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--source-dir", required=True)
    ap.add_argument("--build-dir", required=True)
    ap.add_argument("--version", required=True)
    a = ap.parse_args()
    if os.geteuid() != 0:
        print("SKIP e2e/package: installing the .deb needs root (dpkg -i); run ctest as root, as CI does")
        return SKIP
    c = Checker("e2e/package")
    tmp = tempfile.mkdtemp(prefix="torchtv-package-")
    was_installed = run(["dpkg-query", "-W", "-f=${Status}", "torchtv"]).stdout.startswith("install ok")
    try:
        # 1. The package, from the build tree as it is.
        r = run(["cpack", "-G", "DEB", "--config", os.path.join(a.build_dir, "CPackConfig.cmake"), "-B", tmp])
        deb = os.path.join(tmp, "torchtv_%s_amd64.deb" % a.version)
        if not c.check(r.returncode == 0 and os.path.isfile(deb), "cpack did not make %s:\n%s%s" % (deb, r.stdout, r.stderr)):
            return c.done()
        depends = run(["dpkg-deb", "-f", deb, "Depends"]).stdout
        for lib in ["libtorch", "libz3", "libsqlite3", "libhiredis", "libzip", "python3-torch"]:
            c.check(lib in depends, "Depends lacks %s: %s" % (lib, depends.strip()))
        files = run(["dpkg-deb", "-c", deb]).stdout
        for path in ["./usr/bin/torchtv", "./usr/lib/torchtv/libtorchtv_torch.so", "./usr/share/torchtv/rules/",
                     "./usr/share/torchtv/fusions/", "./usr/share/torchtv/python/torchtv_capture/cli.py",
                     "./usr/lib/python3/dist-packages/torchtv/__init__.py"]:
            c.check(path in files, "the package has no %s" % path)
        c.check("__pycache__" not in files, "the package ships __pycache__")

        # 2. Installed on this machine.
        r = run(["dpkg", "-i", deb])
        if r.returncode != 0:  # missing dependencies: apt resolves them
            r = run(["apt-get", "install", "-y", "-q", deb], timeout=900)
        if not c.check(r.returncode == 0, "installing the .deb failed:\n%s%s" % (r.stdout, r.stderr)):
            return c.done()

        # 3. Used from a folder outside the checkout, the checkout hidden.
        user = os.path.join(tmp, "user-project")
        os.makedirs(user)
        for name, text in [("softmax_pair.py", EQUIVALENT_PAIR), ("softmax_bug_pair.py", BUGGY_PAIR),
                           ("api_use.py", API_SCRIPT)]:
            with open(os.path.join(user, name), "w") as f:
                f.write(text)
        for name in ["rmsnorm_reference.tvir", "rmsnorm_production.tvir", "rmsnorm_production_bug.tvir"]:
            shutil.copy(os.path.join(a.source_dir, "examples", name), user)
        for name in ["mlp.script.pt", "mlp.trace.pt"]:
            shutil.copy(os.path.join(a.source_dir, "tests", "fixtures", "t113", name), user)
        hide = [a.source_dir] + ([] if os.path.abspath(a.build_dir).startswith(os.path.abspath(a.source_dir) + "/")
                                 else [a.build_dir])
        env = clean_env()
        probe = run(hidden(hide, ["ls", a.source_dir]), env=env, cwd=user)
        if probe.returncode != 0 or probe.stdout.strip():
            print("note: cannot hide the checkout (unshare -m: %s); running with it visible" % probe.stderr.strip())
            hide = None

        def installed(argv, **kw):
            return run(hidden(hide, argv) if hide else argv, env=env, cwd=user, **kw)

        r = installed(["/usr/bin/torchtv", "--version"])
        c.check(r.returncode == 0 and "torchtv %s" % a.version in r.stdout and "installed in /usr" in r.stdout,
                "--version: %r" % (r.stdout + r.stderr))

        def verdict(argv, want, code):
            r = installed(argv + ["--format", "json"])
            try:
                got = json.loads(r.stdout)["verdict"]
            except (ValueError, KeyError, TypeError):
                got = None
            c.check(got == want and r.returncode == code,
                    "%s: want %s (exit %d), got %s (exit %d)\n%s" % (" ".join(argv), want, code, got, r.returncode,
                                                                     r.stderr[-2000:]))

        verdict(["/usr/bin/torchtv", "verify", "softmax_pair.py"], "equivalent", 0)
        verdict(["/usr/bin/torchtv", "verify", "softmax_bug_pair.py"], "not_equivalent", 1)
        verdict(["/usr/bin/torchtv", "check", "rmsnorm_reference.tvir", "rmsnorm_production.tvir"], "equivalent", 0)
        verdict(["/usr/bin/torchtv", "check", "rmsnorm_reference.tvir", "rmsnorm_production_bug.tvir"],
                "not_equivalent", 1)
        verdict(["/usr/bin/torchtv", "check", "mlp.script.pt", "mlp.trace.pt", "--inputs", "f32[3,8]"], "equivalent", 0)
        verdict(["/usr/bin/python3", "-m", "torchtv", "verify", "softmax_pair.py"], "equivalent", 0)

        r = installed(["/usr/bin/python3", "-c", "import torchtv; print(torchtv.__file__, torchtv.__version__)"])
        c.check(r.stdout.startswith("/usr/lib/python3/dist-packages/torchtv/") and r.stdout.split()[-1] == a.version,
                "import torchtv from the system Python: %r" % (r.stdout + r.stderr))
        r = installed(["/usr/bin/python3", "api_use.py"])
        c.check(r.stdout.split() == ["/usr/lib/python3/dist-packages/torchtv/__init__.py", "equivalent"],
                "torchtv.verify from the system Python: %r" % (r.stdout + r.stderr))

        # 4. pip: the source tree's pyproject.toml, installed into a folder of its own (no network,
        # no dependency resolution: torch is the environment's).
        # pip builds in the tree it is given (egg-info, build/): a copy of what an sdist holds.
        tree = os.path.join(tmp, "pip-source")
        shutil.copytree(os.path.join(a.source_dir, "src", "capture"), os.path.join(tree, "src", "capture"),
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
        shutil.copy(os.path.join(a.source_dir, "pyproject.toml"), tree)
        site = os.path.join(tmp, "pip-site")
        r = run(["/usr/bin/python3", "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps", "--no-index",
                 "--target", site, tree], env=env, cwd=tmp, timeout=300)
        if c.check(r.returncode == 0, "pip install of the source tree failed:\n%s%s" % (r.stdout, r.stderr)):
            pip_env = dict(env, PYTHONPATH=site)
            r = run(hidden(hide, ["/usr/bin/python3", "api_use.py"]) if hide else ["/usr/bin/python3", "api_use.py"],
                    env=pip_env, cwd=user)
            c.check(r.stdout.split() == [os.path.join(site, "torchtv", "__init__.py"), "equivalent"],
                    "torchtv.verify from the pip install: %r" % (r.stdout + r.stderr))
            c.check(os.path.isfile(os.path.join(site, "torchtv_capture", "cli.py")), "pip installed no torchtv_capture")
        # 5. The composite action (action.yml) on a scratch repository, with the installed package.
        run_action(c, a, tmp, deb, hide, env)
        return c.done()
    finally:
        if not was_installed:
            run(["dpkg", "--purge", "torchtv"])
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main() or 0)
