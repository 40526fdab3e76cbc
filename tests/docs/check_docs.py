#!/usr/bin/env python3
"""The documentation's promises, checked:

  - README.md is a front door: under 400 lines;
  - every relative link of README.md and docs/*.md reaches a file of the tree,
    and a link with #anchor a heading of that file (GitHub's anchor rule);
  - every page of docs/ is linked from README.md and installed (docs/meson.build);
  - docs/ngx.1 is what tools/docs/md2man.py makes of docs/usage.md now;
  - the tree cites works by authors and year and says what it means: no
    "paper 00N" and no issue number in core, modules, patterns, fit, tools,
    tests, bench and docs (also when a line break splits the two words);
  - patterns stand side by side: no pattern's folder includes or builds a file
    of another pattern's folder (what they share is in patterns/common and
    patterns/shared), as the docs promise;
  - README.md and docs/*.md hold no dated lab run: no date ("27 Nov 2026",
    "2026-11-27", "Nov 27, 2026") and no time of day in UTC outside a fenced
    code block (an example of what a command prints, in a fence, may show
    its timestamps); runs belong in bench/results/, whose links (and those of
    bench's READMEs) are checked too.

    check_docs.py SOURCE_ROOT VERSION
"""
import os
import re
import subprocess
import sys
import tempfile

README_MAX_LINES = 400
CITATION_DIRS = ["core", "modules", "patterns", "fit", "tools", "tests", "bench", "docs"]
# Between the two words: blanks, or a line break with the next line's comment
# or list marker ("paper\n// 000", "issue\n#   9").
_GAP = r"(?:[ \t]+|[ \t]*\n[ \t]*(?:#+|//+|\*|>|-)?[ \t]*)"
FORBIDDEN = re.compile(rf"\b(?:papers?{_GAP}00[0-4]|issues?{_GAP}#?[0-9])", re.IGNORECASE)


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
DATED = re.compile(r"\b(?:(?:19|20)\d\d-[01]\d-[0-3]\d"  # 2026-11-27
                   rf"|[0-3]?\d {_MONTH},? (?:19|20)\d\d"  # 27 Nov 2026
                   rf"|{_MONTH} [0-3]?\d,? (?:19|20)\d\d"  # Nov 27, 2026
                   r"|[0-2]\d:[0-5]\d(?:-[0-2]\d:[0-5]\d)? UTC)\b")  # 14:35 UTC


def dated_run_problems(root, page):
    """'FILE:LINE: ...' for each date or UTC time of day outside a fenced code block."""
    problems, fence = [], None
    rel = os.path.relpath(page, root)
    for number, line in enumerate(open(page, encoding="utf-8"), start=1):
        marker = re.match(r"\s*(```|~~~)", line)
        if marker:
            fence = None if fence == marker.group(1) else (fence or marker.group(1))
            continue
        found = None if fence else DATED.search(line)
        if found:
            problems.append(f"{rel}:{number}: '{found.group(0)}' dates a lab run: such runs belong "
                            "in bench/results/ (with the command that produced them); the page "
                            "states the conclusion and links there")
    return problems


def anchor_of(heading):
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to '-'."""
    text = heading.lstrip("#").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path):
    found, fenced = set(), False
    for line in open(path, encoding="utf-8"):
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced and re.match(r"#{1,6} ", line):
            found.add(anchor_of(line))
    return found


def link_problems(root, page):
    problems = []
    text = re.sub(r"```.*?```", "", open(page, encoding="utf-8").read(), flags=re.S)
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        goal = os.path.normpath(os.path.join(os.path.dirname(page), path)) if path else page
        where = os.path.relpath(page, root)
        if not os.path.exists(goal):
            problems.append(f"{where}: link to {target}: no such file")
        elif anchor and goal.endswith(".md") and anchor not in anchors(goal):
            problems.append(f"{where}: link to {target}: no heading with that anchor")
    return problems


def page_problems(root, pages):
    """Pages a reader cannot find from the front door, or that are not installed."""
    readme = open(os.path.join(root, "README.md"), encoding="utf-8").read()
    installed = open(os.path.join(root, "docs", "meson.build"), encoding="utf-8").read()
    problems = []
    for page in pages:
        name = os.path.basename(page)
        if os.path.dirname(page) != os.path.join(root, "docs"):
            continue
        if f"(docs/{name})" not in readme:
            problems.append(f"docs/{name} is not linked from README.md")
        if f"'{name}'" not in installed:
            problems.append(f"docs/{name} is not installed (docs/meson.build)")
    return problems


def man_page_problems(root, version):
    with tempfile.TemporaryDirectory() as scratch:
        fresh = os.path.join(scratch, "ngx.1")
        subprocess.run([sys.executable, os.path.join(root, "tools/docs/md2man.py"),
                        os.path.join(root, "docs/usage.md"), version, fresh], check=True)
        kept = os.path.join(root, "docs/ngx.1")
        if not os.path.exists(kept) or open(kept).read() != open(fresh).read():
            return ["docs/ngx.1 is not what tools/docs/md2man.py makes of docs/usage.md: "
                    f"run python3 tools/docs/md2man.py docs/usage.md {version} docs/ngx.1"]
    return []


def forbidden_citations(rel, text):
    """'FILE:LINE: ...' for each "paper 00N" or issue number in the text."""
    return [f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: cites '{re.sub(_GAP, ' ', m.group(0))}'"
            " (cite a work as docs/references.md does; say in words what an issue asked)"
            for m in FORBIDDEN.finditer(text)]


def citation_problems(root):
    listed = subprocess.run(["git", "-C", root, "ls-files", "-z", "--", *CITATION_DIRS],
                            capture_output=True, text=True)
    if listed.returncode != 0:
        return []  # not a git checkout (a release tarball): nothing to list
    problems = []
    for rel in filter(None, listed.stdout.split("\0")):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            continue
        try:
            text = open(path, encoding="utf-8").read()
        except UnicodeDecodeError:
            continue  # images and other binary files
        problems += forbidden_citations(rel, text)
    return problems


def pattern_independence_problems(root):
    base = os.path.join(root, "patterns")
    libraries = {"common", "shared"}
    folders = {d for d in os.listdir(base) if os.path.isdir(os.path.join(base, d))}
    problems = []
    for folder in sorted(folders - libraries):
        for name in sorted(os.listdir(os.path.join(base, folder))):
            text = open(os.path.join(base, folder, name), encoding="utf-8", errors="replace").read()
            for other in re.findall(r"\.\./([A-Za-z0-9_]+)/", text):
                if other in folders - libraries - {folder}:
                    problems.append(f"patterns/{folder}/{name} uses the folder of pattern '{other}'")
    return problems


def main():
    if len(sys.argv) != 3:
        print("usage: check_docs.py SOURCE_ROOT VERSION", file=sys.stderr)
        return 2
    root, version = sys.argv[1], sys.argv[2]
    readme = os.path.join(root, "README.md")
    pages = [readme] + sorted(os.path.join(root, "docs", f)
                              for f in os.listdir(os.path.join(root, "docs")) if f.endswith(".md"))
    problems = []
    lines = sum(1 for _ in open(readme, encoding="utf-8"))
    if lines >= README_MAX_LINES:
        problems.append(f"README.md has {lines} lines (a front door stays under {README_MAX_LINES})")
    bench = os.path.join(root, "bench")
    results = os.path.join(bench, "results")
    bench_pages = sorted(p for p in [os.path.join(bench, "README.md")] + [
        os.path.join(bench, d, "README.md") for d in os.listdir(bench)] if os.path.isfile(p))
    bench_pages += sorted(os.path.join(results, f) for f in (
        os.listdir(results) if os.path.isdir(results) else []) if f.endswith(".md"))
    for page in pages + bench_pages:
        problems += link_problems(root, page)
    for page in pages:
        problems += dated_run_problems(root, page)
    problems += page_problems(root, pages)
    problems += man_page_problems(root, version)
    problems += citation_problems(root)
    problems += pattern_independence_problems(root)
    for p in problems:
        print("FAIL:", p)
    print(f"docs: README {lines} lines, {len(pages)} pages checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
