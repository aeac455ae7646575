"""Shared helpers of the end-to-end tests: they run the real CLI.

Run with Debian's /usr/bin/python3 (it sees python3-jsonschema)."""
import argparse
import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET

EXIT_CODES = {"equivalent": 0, "not_equivalent": 1, "unknown": 2, "error": 3}
SEVERITY = {"equivalent": 0, "unknown": 1, "not_equivalent": 2, "error": 3}


def args():
    ap = argparse.ArgumentParser()
    ap.add_argument("--torchtv", required=True)
    ap.add_argument("--source-dir", required=True)
    return ap.parse_args()


class Checker:
    """Collects failures; exits non-zero at the end if there were any."""

    def __init__(self, name):
        self.name, self.failures = name, []

    def check(self, cond, message):
        if not cond:
            self.failures.append(message)
        return cond

    def done(self):
        for f in self.failures:
            print(f"FAIL {self.name}: {f}", file=sys.stderr)
        if self.failures:
            sys.exit(1)
        print(f"ok {self.name}")


def run(cmd, timeout=600, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def sarif_errors(source_dir, path):
    """Schema errors of a SARIF file against the vendored OASIS schema."""
    import jsonschema  # Debian's python3-jsonschema
    with open(os.path.join(source_dir, "third_party/sarif/sarif-schema-2.1.0.json")) as f:
        schema = json.load(f)
    with open(path) as f:
        log = json.load(f)
    validator = jsonschema.Draft4Validator(schema, format_checker=jsonschema.FormatChecker())
    return [f"{'/'.join(map(str, e.path))}: {e.message}" for e in validator.iter_errors(log)]


def junit_cases(path):
    """(suite, testcase name, 'pass'|'failure'|'error', failure text) for each testcase."""
    root = ET.parse(path).getroot()
    out = []
    for suite in root.iter("testsuite"):
        for case in suite.iter("testcase"):
            kind, text = "pass", ""
            for tag in ("failure", "error"):
                el = case.find(tag)
                if el is not None:
                    kind, text = tag, (el.text or "")
            out.append((suite.get("name"), case.get("name"), kind, text))
    return out
