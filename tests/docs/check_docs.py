#!/usr/bin/env python3
"""The documentation's promises, checked:

  - README.md is a front door: under 400 lines;
  - every relative link of README.md and docs/*.md reaches a file of the tree,
    and a link with #anchor a heading of that file (GitHub's anchor rule);
  - every page of docs/ is linked from README.md and installed (docs/meson.build);
  - docs/ngx.1 is what tools/docs/md2man.py makes of docs/usage.md now, with
    the sections NAME, SYNOPSIS, DESCRIPTION, OPTIONS (the subcommands'
    too), EXIT STATUS, ENVIRONMENT, FILES, EXAMPLES and SEE ALSO in order;
  - the tree cites works by authors and year and says what it means: no
    "paper 00N" and no issue number in core, modules, patterns, fit, tools,
    tests, bench and docs (also when a line break splits the two words);
  - patterns stand side by side: no pattern's folder includes or builds a file
    of another pattern's folder (what they share is in the libraries
    patterns/measure, patterns/common and patterns/shared), as the docs promise;
  - README.md and docs/*.md hold no dated lab run: no date ("27 Nov 2026",
    "2026-11-27", "Nov 27, 2026") and no time of day in UTC outside a fenced
    code block (an example of what a command prints, in a fence, may show
    its timestamps); runs belong in bench/results/, whose links (and those of
    bench's READMEs) are checked too;
  - README.md and docs/*.md are a manual, not a lab notebook: no text about
    the machine the docs were written on (NARRATION below names each
    pattern: a load average, "load 7", a "2-vCPU" machine, "vCPUs", "the
    loaded/shared/development machine", "this VM", "runs on this machine",
    "this machine's", "not in the suite yet", "no one here",
    "while other builds"), in prose and in fenced blocks alike;
  - every option is documented: each `--option` of the core, of every module
    and pattern (`ngx --completion bash` lists them from the option tables)
    and of every subcommand (`ngx CMD --help`) appears in README.md or
    docs/*.md (needs the built ngx: the environment's NGX; without it this
    check is skipped, said on stdout).

    check_docs.py SOURCE_ROOT VERSION [DOCS_ROOT]

DOCS_ROOT (default SOURCE_ROOT) is where README.md and docs/ are read: the
test docs-refusals points it at a copy with a planted sentence or a
removed option to show that the checks fail.
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


# Text about the build machine, by name: (pattern, what it narrates).
NARRATION = [
    (r"\bload averages?\b", "a load average"),
    (r"\bload (?:of )?(?:about )?\d", "a machine's load ('load 7')"),
    (r"\b\d+-v?(?:CPU|core) (?:machine|VM|guest|host)\b", "the build machine's CPUs ('a 2-vCPU VM')"),
    (r"\bvCPUs?\b", "the build machine's virtual CPUs"),
    (r"\b(?:the|this) (?:loaded|shared|quiet|busy|development|build)\b[\w -]{0,14}?\b(?:machine|VM)\b",
     "the build machine ('the loaded machine')"),
    (r"\bthis VM\b", "the build machine ('this VM')"),
    (r"\b(?:runs?|calibration|goals?) (?:on|of) this machine\b", "runs on the build machine"),
    (r"\bthis machine's\b", "the build machine ('this machine's')"),
    (r"\bnot (?:in the suite|tested|explained|measured) yet\b", "the state of the work ('not in the suite yet')"),
    (r"\bno one here\b", "the authors ('no one here')"),
    (r"\bwhile other (?:builds|engineers|agents|jobs)\b", "the build machine's other work"),
]


def narration_problems(root, page):
    """'FILE:LINE: ...' for each sentence about the build machine (NARRATION)."""
    problems = []
    rel = os.path.relpath(page, root)
    for number, line in enumerate(open(page, encoding="utf-8"), start=1):
        for pattern, what in NARRATION:
            found = re.search(pattern, line, re.IGNORECASE)
            if found:
                problems.append(f"{rel}:{number}: '{found.group(0)}' narrates {what}: the manual says what ngx "
                                "does; a run's machine and load belong in bench/results/ (linked)")
    return problems


def documented_options(pages):
    """Every '--name' the pages mention."""
    found = set()
    for page in pages:
        found.update(re.findall(r"--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", open(page, encoding="utf-8").read()))
    return found


def options_of(ngx):
    """{'--name': 'where it is declared'} from the option tables of the built ngx."""
    env = dict(os.environ, COLUMNS="200")
    run = lambda *args: subprocess.run([ngx, *args], capture_output=True, text=True, timeout=60, env=env)
    script = run("--completion", "bash").stdout
    options = {}
    for name in re.findall(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", script):
        options.setdefault(name, "ngx --completion bash (core, modules, patterns)")
    commands = re.search(r"commands='([^']*)'", script)
    for command in (commands.group(1).split() if commands else []):
        text = run(command, "--help")
        usage = re.search(r"usage: ngx \S+ ([^\n]*)", text.stdout + text.stderr)
        for name in re.findall(r"(?<![\w-])--([a-z][a-z0-9]*(?:-[a-z0-9]+)*)", text.stdout + text.stderr):
            # positional arguments appear as --NAME in the table but not in the usage line
            positional = usage and f"--{name}" not in usage.group(1) and name in ("file", "trace")
            if not positional:
                options.setdefault(name, f"ngx {command} --help")
    return options


def option_problems(ngx, pages):
    if not ngx or not os.access(ngx, os.X_OK):
        print("docs: note: no built ngx (environment NGX): the options are not checked")
        return []
    known = documented_options(pages)
    return [f"option --{name} ({where}) appears in no page of README.md and docs/*.md: document it"
            for name, where in sorted(options_of(ngx).items()) if name not in known]


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


MAN_SECTIONS = ["NAME", "SYNOPSIS", "DESCRIPTION", "OPTIONS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES",
                "SEE ALSO"]


def man_section_problems(root):
    """The sections of a manual page (man-pages(7)), in that order, in docs/ngx.1."""
    path = os.path.join(root, "docs/ngx.1")
    if not os.path.exists(path):
        return []
    found = [line[4:].strip().strip('"') for line in open(path, encoding="utf-8") if line.startswith(".SH ")]
    missing = [s for s in MAN_SECTIONS if s not in found]
    if missing:
        return [f"docs/ngx.1 lacks the section(s) {', '.join(missing)} (docs/usage.md's '# ' headings)"]
    order = [s for s in found if s in MAN_SECTIONS]
    if order != MAN_SECTIONS:
        return [f"docs/ngx.1's sections run {', '.join(order)}; a manual page's order is {', '.join(MAN_SECTIONS)}"]
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
    libraries = {"measure", "common", "shared"}
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
    if len(sys.argv) not in (3, 4):
        print("usage: check_docs.py SOURCE_ROOT VERSION [DOCS_ROOT]", file=sys.stderr)
        return 2
    source, version = sys.argv[1], sys.argv[2]
    root = sys.argv[3] if len(sys.argv) == 4 else source
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
        os.path.join(bench, d, "README.md") for d in (os.listdir(bench) if os.path.isdir(bench) else [])]
        if os.path.isfile(p))
    bench_pages += sorted(os.path.join(results, f) for f in (
        os.listdir(results) if os.path.isdir(results) else []) if f.endswith(".md"))
    for page in pages + bench_pages:
        problems += link_problems(root, page)
    for page in pages:
        problems += dated_run_problems(root, page)
        problems += narration_problems(root, page)
    problems += page_problems(root, pages)
    problems += man_page_problems(root, version)
    problems += man_section_problems(root)
    problems += option_problems(os.environ.get("NGX"), pages)
    if root == source:
        problems += citation_problems(root)
        problems += pattern_independence_problems(root)
    for p in problems:
        print("FAIL:", p)
    print(f"docs: README {lines} lines, {len(pages)} pages checked, {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
