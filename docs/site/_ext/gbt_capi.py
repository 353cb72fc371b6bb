"""The ``gbt-capi`` directive: the C API reference, generated from
include/gbt.h at build time.  The header is the manual (one comment block
per call); this walks it in order and turns each section banner into a
heading, each declaration into a C-domain object (function, type, enum,
macro) carrying the comment above it, and a comment that stands alone into
a paragraph of its own.  The directive's argument is the header's path,
relative to this page's directory."""
import os
import re

from docutils import nodes
from docutils.statemachine import StringList
from sphinx.util.docutils import SphinxDirective

BANNER = re.compile(r"^/\* -{10,} \*/$")


def _comment_text(lines):
    """The text of a /* ... */ comment, without its markers and margins."""
    text = "\n".join(lines).strip()
    text = text[2:] if text.startswith("/*") else text
    text = text[:-2] if text.endswith("*/") else text
    out = []
    for line in text.split("\n"):
        line = re.sub(r"^\s*\* ?", "", line) if line.strip().startswith("*") else line.strip()
        out.append(line.rstrip())
    while out and not out[0]:
        out.pop(0)
    while out and not out[-1]:
        out.pop()
    return "\n".join(out)


def parse_header(path):
    """Items in order: ("section", title), ("text", comment),
    ("decl", kind, name_or_signature, source, comment)."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    items = []
    i, n = 0, len(lines)
    # the file's opening comment is the page's introduction
    if lines and lines[0].startswith("/*"):
        j = 0
        while "*/" not in lines[j]:
            j += 1
        items.append(("text", _comment_text(lines[: j + 1])))
        i = j + 1
    pending = None
    while i < n:
        line = lines[i]
        s = line.strip()
        if BANNER.match(s) and i + 2 < n and BANNER.match(lines[i + 2].strip()):
            title = lines[i + 1].strip()[2:-2].strip()
            items.append(("section", title))
            pending = None
            i += 3
            continue
        if s.startswith("/*"):
            j = i
            while "*/" not in lines[j]:
                j += 1
            comment = _comment_text(lines[i: j + 1])
            i = j + 1
            if i < n and lines[i].strip() == "" and pending is None:
                items.append(("text", comment))
            else:
                if pending:
                    items.append(("text", pending))
                pending = comment
            continue
        if s.startswith("GBT_API") or s.startswith("typedef") or s.startswith("enum "):
            j = i
            depth = 0
            src = []
            while True:
                src.append(lines[j])
                depth += lines[j].count("{") - lines[j].count("}")
                if depth == 0 and lines[j].rstrip().endswith(";"):
                    break
                j += 1
            i = j + 1
            items.append(("decl",) + _declaration(src) + ("\n".join(src), pending))
            pending = None
            continue
        if s.startswith("#define GBT_") and not s.startswith("#define GBT_H") and \
                not s.startswith("#define GBT_API") and not s.startswith("#define GBT_STATUS_ENUM_"):
            j = i
            while lines[j].rstrip().endswith("\\"):
                j += 1
            src = lines[i: j + 1]
            i = j + 1
            m = re.match(r"#define (\w+(\([^)]*\))?)\s*(.*?)\s*(/\*(.*)\*/)?$", src[0].strip())
            comment = pending
            if m and m.group(5):
                comment = (pending + "\n" if pending else "") + m.group(5).strip()
            items.append(("decl", "macro", m.group(1), "\n".join(src), comment))
            pending = None
            continue
        if s == "" and pending is not None:
            # a comment followed by a blank line and no declaration stands alone
            items.append(("text", pending))
            pending = None
        i += 1
    return items


def _declaration(src):
    """The C-domain object kind and signature of a declaration."""
    text = re.sub(r"/\*.*?\*/", "", " ".join(x.strip() for x in src), flags=re.S)
    text = re.sub(r"\s+", " ", text).strip().rstrip(";").strip()
    if text.startswith("GBT_API "):
        return ("function", text[len("GBT_API "):].replace("( ", "("))
    m = re.match(r"typedef struct (\w+) (\w+)$", text)
    if m:
        return ("type", m.group(2))
    m = re.match(r"typedef enum (\w+) \{.*\} (\w+)$", text)
    if m:
        return ("enum", m.group(2))
    m = re.match(r"enum (\w+) \{", text)
    if m:
        return ("enum", m.group(1))
    if text.startswith("typedef "):
        return ("type", text[len("typedef "):])
    raise ValueError("gbt.h: a declaration this page cannot read: " + text)


def _fence(lang, text):
    return ["````" + lang] + text.split("\n") + ["````"]


class GbtCapi(SphinxDirective):
    required_arguments = 1
    has_content = False

    def run(self):
        path = os.path.normpath(os.path.join(os.path.dirname(self.env.doc2path(self.env.docname)),
                                             self.arguments[0]))
        self.env.note_dependency(path)
        # each banner of the header is a section of the page (in its
        # table of contents), holding the declarations that follow it
        result, section, md = [], None, []

        def flush():
            container = nodes.container(classes=["gbt-capi"])
            self.state.nested_parse(StringList(md, source=path), self.content_offset, container)
            (section if section is not None else result).extend(container.children)
            md.clear()

        for item in parse_header(path):
            if item[0] == "section":
                flush()
                section = nodes.section(ids=[nodes.make_id("c-api-" + item[1])], names=[nodes.fully_normalize_name(item[1])])
                section += nodes.title(item[1], item[1])
                self.state.document.note_implicit_target(section, section)
                result.append(section)
            elif item[0] == "text":
                md += [""] + _fence("text", item[1]) + [""]
            else:
                _, kind, sig, source, comment = item
                md += ["", "`````{c:" + kind + "} " + sig, ""]
                if comment:
                    md += _fence("text", comment) + [""]
                if kind in ("enum", "macro"):
                    md += _fence("c", source) + [""]
                md += ["`````", ""]
        flush()
        return result


def setup(app):
    app.add_directive("gbt-capi", GbtCapi)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
