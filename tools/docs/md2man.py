#!/usr/bin/env python3
"""Writes the manual page ngx.1 from docs/usage.md, so that `man ngx` and the
web page say the same thing.

    md2man.py USAGE.md VERSION OUT.1

The Markdown the docs use maps onto man(7) macros: '#' headings become
sections (.SH: usage.md's are SYNOPSIS, DESCRIPTION, OPTIONS, EXIT STATUS,
ENVIRONMENT, FILES and EXAMPLES; NAME comes first and SEE ALSO last), '##'/'###' subsections (.SS), fenced code blocks no-fill
blocks, a table's rows tagged paragraphs (.TP: the first cell the tag, the
others the text), `code` bold, [text](link) its text. Anything roff would
read as a request (a line starting with '.' or "'") is escaped.
"""
import re
import sys

SEE_ALSO = ["recipes", "coming-from", "output", "modules", "patterns", "models", "multi-node", "writing-plugins",
            "references"]


def inline(text):
    """Markdown inline markup to roff: escapes, `code`, **bold**, links."""
    text = text.replace("\\|", "|").replace("\\", "\\e")
    text = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", text)
    text = re.sub(r"`([^`]+)`", lambda m: "\\fB" + m.group(1).replace("-", "\\-") + "\\fR", text)
    text = re.sub(r"\*\*([^*]+)\*\*", r"\\fB\1\\fR", text)
    return text


def line_out(text):
    """One output line, safe from being read as a roff request."""
    return "\\&" + text if text.startswith((".", "'")) else text


def table_rows(lines):
    """The cells of a Markdown table's body rows (header and rule dropped)."""
    rows = []
    for i, row in enumerate(lines):
        if i < 2:
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip().strip("|"))]
        rows.append(cells)
    return rows


def convert(markdown, version):
    out = [f'.TH NGX 1 "" "ngx {version}" "ngx manual"', ".SH NAME",
           "ngx \\- measure communication costs on HPC systems and fit models to them"]
    lines = markdown.split("\n")
    i = 0
    paragraph = []

    def flush():
        if paragraph:
            out.append(".PP")
            out.extend(line_out(inline(p)) for p in paragraph)
            paragraph.clear()

    while i < len(lines):
        line = lines[i]
        if line.startswith("```"):
            flush()
            out += [".PP", ".RS 4", ".nf"]
            i += 1
            while i < len(lines) and not lines[i].startswith("```"):
                out.append(line_out(lines[i].replace("\\", "\\e")))
                i += 1
            out += [".fi", ".RE"]
        elif line.startswith("|"):
            flush()
            block = []
            while i < len(lines) and lines[i].startswith("|"):
                block.append(lines[i])
                i += 1
            for cells in table_rows(block):
                out += [".TP", line_out(inline(cells[0])), line_out(inline(" ".join(cells[1:])))]
            continue
        elif line.startswith("# "):
            flush()
            title = line[2:].strip().upper()
            out.append(".SH " + ("SYNOPSIS" if title == "USAGE" else inline(title)))
        elif re.match(r"#{2,4} ", line):
            flush()
            out.append(".SS " + inline(line.lstrip("#").strip()))
        elif not line.strip():
            flush()
        else:
            paragraph.append(line.strip())
        i += 1
    flush()
    out.append(".SH SEE ALSO")
    out.append(", ".join(f"docs/{page}.md" for page in SEE_ALSO) +
               " in the source tree (installed under share/doc/ngx); bash completion: "
               "\\fBsource <(ngx \\-\\-completion bash)\\fR")
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        print("usage: md2man.py USAGE.md VERSION OUT.1", file=sys.stderr)
        return 2
    with open(sys.argv[1], encoding="utf-8") as f:
        page = convert(f.read(), sys.argv[2])
    with open(sys.argv[3], "w", encoding="utf-8") as f:
        f.write(page)
    return 0


if __name__ == "__main__":
    sys.exit(main())
