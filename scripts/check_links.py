#!/usr/bin/env python3
"""Every relative link in the project's Markdown files resolves: the file exists, and a #fragment names a
heading of the target (GitHub's anchors). External links (http, https, mailto) are not checked.

    python3 scripts/check_links.py [ROOT]      # exit 1 and one line per broken link
"""
import pathlib
import re
import subprocess
import sys

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")


def anchors(markdown):
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen, result = {}, set()
    in_code = False
    for line in markdown.splitlines():
        if line.startswith("```"):
            in_code = not in_code
        if in_code or not re.match(r"#{1,6} ", line):
            continue
        text = re.sub(r"[^\w\- ]", "", line.lstrip("#").strip().lower()).replace(" ", "-")
        count = seen.get(text, 0)
        seen[text] = count + 1
        result.add(text if count == 0 else f"{text}-{count}")
    return result


def without_code(markdown):
    return re.sub(r"```.*?```", "", markdown, flags=re.S)


def main():
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
    listed = subprocess.run(["git", "ls-files", "*.md"], cwd=root, capture_output=True, text=True)
    # Outside a git checkout: every Markdown file but those of build folders.
    files = listed.stdout.split() if listed.returncode == 0 else [
        str(p.relative_to(root)) for p in root.rglob("*.md") if not p.relative_to(root).parts[0].startswith("build")]
    broken = 0
    for name in files:
        source = root / name
        text = source.read_text(encoding="utf-8")
        for match in LINK.finditer(without_code(text)):
            target = match.group(1) or match.group(2)
            if re.match(r"[a-z]+:", target):
                continue
            path, _, fragment = target.partition("#")
            resolved = (source.parent / path).resolve() if path else source
            problem = None
            if not resolved.exists():
                problem = "no such file"
            elif fragment and resolved.suffix == ".md" and fragment not in anchors(resolved.read_text(encoding="utf-8")):
                problem = f"no heading #{fragment}"
            if problem:
                broken += 1
                print(f"{name}: ({target}): {problem}")
    print(f"{len(files)} Markdown files, {broken} broken links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
