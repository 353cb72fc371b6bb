"""Links of the Markdown the site is made of, pointed at the site.

The pages include docs/*.md and bindings/python/README.md, whose links
name files of the source tree (docs/determinism.md, ../bench/results/...),
and text moved from README.md keeps its links from the top directory.  On
each page and each included file, a link to a file that is a page of the
site becomes a link to that page; a link to another file of the source
tree becomes its path in code, since the site does not hold it.  Links
that resolve neither way are left alone, for Sphinx to report."""
import os
import re

# source files -> the site page that shows them (paths from the top directory)
PAGES = {
    "README.md": "index",
    "bindings/python/README.md": "python-guide",
    "docs/accuracy.md": "figures",
    "docs/architecture.md": "records/architecture",
    "docs/binary-format.md": "records/binary-format",
    "docs/decisions.md": "records/decisions",
    "docs/determinism.md": "topics/devices",
    "docs/distributed.md": "topics/distributed",
    "docs/external-memory.md": "topics/external-memory",
    "docs/model-format.md": "records/model-format",
    "docs/perf-notes.md": "records/perf-notes",
    "docs/reliability.md": "topics/reliability",
}
LINK = re.compile(r"(?<!!)\[([^\]\n]+)\]\(([^)\s]+)\)")


def _rewrite(text, file_dir, top, srcdir):
    def one(m):
        label, target = m.group(1), m.group(2)
        if re.match(r"[a-z]+:", target) or target.startswith(("#", "/")):
            return m.group(0)
        path, _, frag = target.partition("#")
        if os.path.isfile(os.path.join(srcdir, os.path.relpath(os.path.join(file_dir, path), srcdir))) \
                and os.path.abspath(os.path.join(file_dir, path)).startswith(srcdir + os.sep):
            return m.group(0)  # a page of the site, by its own path
        for base in (file_dir, top):
            full = os.path.abspath(os.path.join(base, path))
            if not os.path.exists(full) or not full.startswith(top + os.sep):
                continue
            rel = os.path.relpath(full, top)
            if rel in PAGES:
                return f"[{label}](/{PAGES[rel]}.md{'#' + frag if frag else ''})"
            code = f"`{rel}`"
            return code if label.strip("`") == rel else f"{label} ({code})"
        return m.group(0)
    return LINK.sub(one, text)


def _top(app):
    return os.path.abspath(os.path.join(app.srcdir, app.config.gbt_run_directory))


def source_read(app, docname, source):
    page = os.path.dirname(os.path.join(str(app.srcdir), docname))
    source[0] = _rewrite(source[0], page, _top(app), os.path.abspath(str(app.srcdir)))


def include_read(app, relative_path, parent_docname, content):
    full = os.path.abspath(os.path.join(str(app.srcdir), str(relative_path)))
    content[0] = _rewrite(content[0], os.path.dirname(full), _top(app), os.path.abspath(str(app.srcdir)))


def setup(app):
    app.connect("source-read", source_read)
    app.connect("include-read", include_read)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
