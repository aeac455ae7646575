#!/usr/bin/env python3
"""Prints GitHub workflow commands (::error file=...,line=...::) for the results of a torchtv SARIF
file, so that a pull request shows each failing output at its source line even where code
scanning is not enabled. Used by the composite action (action.yml). Paths stay as SARIF gives
them: relative to the repository root (torchtv's --source-root)."""
import json
import sys

COMMAND = {"error": "error", "warning": "warning", "note": "notice"}


def escape(text, props=False):
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    return text.replace(":", "%3A").replace(",", "%2C") if props else text


def annotations(sarif):
    for run in sarif.get("runs", []):
        for result in run.get("results", []):
            command = COMMAND.get(result.get("level", "error"), "error")
            props = ["title=" + escape("torchtv " + result.get("ruleId", ""), True)]
            locations = result.get("locations") or []
            if locations:
                physical = locations[0].get("physicalLocation", {})
                uri = physical.get("artifactLocation", {}).get("uri", "")
                if uri.startswith("file://"):
                    uri = uri[len("file://"):]
                if uri:
                    props.insert(0, "file=" + escape(uri, True))
                line = physical.get("region", {}).get("startLine")
                if line:
                    props.insert(1, "line=%d" % line)
            yield "::%s %s::%s" % (command, ",".join(props), escape(result.get("message", {}).get("text", "")))


def main(argv):
    if len(argv) != 2:
        print("usage: sarif_annotations.py RESULTS.sarif", file=sys.stderr)
        return 3
    try:
        with open(argv[1]) as f:
            sarif = json.load(f)
    except (OSError, ValueError) as e:
        print("sarif_annotations: cannot read %s: %s" % (argv[1], e), file=sys.stderr)
        return 3
    for line in annotations(sarif):
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
