"""The ``gbt-params`` directive: the table of every booster parameter, read
at build time from the library's own table (gbt.params_info(), which calls
gbt_param_count/gbt_param_describe), so the page cannot drift from the code.
Each parameter is also registered as a ``confval`` object: the search box
finds it by name and other pages link to it with {confval}`max_depth`."""
from docutils import nodes
from sphinx.util.docutils import SphinxDirective

COLUMNS = (("parameter", 15), ("aliases", 12), ("type or choices", 17), ("default", 11),
           ("range", 11), ("meaning", 34))


def _cell(*children):
    entry = nodes.entry()
    para = nodes.paragraph()
    para.extend(children)
    entry += para
    return entry


def _literals(text, sep):
    out = []
    for i, part in enumerate(p.strip() for p in text.split(sep) if p.strip()):
        if i:
            out.append(nodes.Text(", " if sep == "," else " | "))
        out.append(nodes.literal(part, part))
    return out


class GbtParams(SphinxDirective):
    has_content = False

    def run(self):
        import gbt

        params = gbt.params_info()
        table = nodes.table(classes=["gbt-params", "colwidths-given"])
        group = nodes.tgroup(cols=len(COLUMNS))
        table += group
        for _, width in COLUMNS:
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        row = nodes.row()
        for title, _ in COLUMNS:
            row += _cell(nodes.Text(title))
        head += row
        group += head
        body = nodes.tbody()
        std = self.env.get_domain("std")
        for p in params:
            name = p["name"]
            node_id = "param-" + name
            row = nodes.row(ids=[node_id])
            std.note_object("confval", name, node_id, location=(self.env.docname, self.lineno))
            for alias in (a.strip() for a in p["aliases"].split(",") if a.strip()):
                std.note_object("confval", alias, node_id, location=(self.env.docname, self.lineno))
            row += _cell(nodes.literal(name, name))
            row += _cell(*_literals(p["aliases"], ","))
            kind = p["type"]
            row += _cell(*(_literals(kind, "|") if "|" in kind else [nodes.Text(kind)]))
            row += _cell(nodes.literal(p["default"], p["default"]) if p["default"] else nodes.Text("(none)"))
            row += _cell(nodes.Text(p["range"]))
            row += _cell(nodes.Text(p["help"]))
            body += row
        group += body
        count = nodes.paragraph(text=f"{len(params)} parameters, from the library's table "
                                     "(gbt_param_describe) when this page was built.")
        return [count, table]


def setup(app):
    app.add_directive("gbt-params", GbtParams)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
