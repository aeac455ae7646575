"""The JSON documents printed one after another (`torchtv check --each` / `verify --each
--format json`: one per pair, Note [Checking each file]); parsing stops at the first text that
is not JSON, so a run that ended early gives the documents it printed."""
import json


def documents(text):
    found, rest = [], text.lstrip()
    while rest:
        try:
            doc, end = json.JSONDecoder().raw_decode(rest)
        except json.JSONDecodeError:
            break
        found.append(doc)
        rest = rest[end:].lstrip()
    return found
