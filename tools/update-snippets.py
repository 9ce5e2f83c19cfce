#!/usr/bin/env python3
"""Refreshes the code blocks that follow `<!-- snippet: PATH NAME -->` in docs/lessons/*.md from
the marked regions of the sources (docs_test fails until they match)."""
import pathlib
import re
import sys

root = pathlib.Path(__file__).resolve().parent.parent


def extract(path, name):
    lines, out, inside = (root / path).read_text().split("\n"), [], False
    for line in lines:
        if not inside:
            inside = f"[snippet:{name}]" in line
        elif "[/snippet]" in line:
            return "\n".join(out) + "\n"
        else:
            out.append(line)
    sys.exit(f"{path}: no snippet '{name}'")


pattern = re.compile(r"(<!-- snippet: (\S+) (\S+) -->\n```[a-z]*\n)(.*?)(```)", re.S)
for doc in sorted((root / "docs" / "lessons").glob("*.md")):
    text = doc.read_text()
    new = pattern.sub(lambda m: m.group(1) + extract(m.group(2), m.group(3)) + m.group(5), text)
    if new != text:
        doc.write_text(new)
        print(f"updated {doc.relative_to(root)}")
