"""The ``gbt-run`` directive: runs a tutorial's Python code while the site
is built and shows the code, what it printed and the matplotlib figures it
drew (embedded as PNG).  The blocks of one page share their variables, as
cells of a notebook do; the code runs in the source tree's top directory,
so paths read as they do in a clone (datasets/...).  Code that raises
fails the build, naming the page and the error."""
import base64
import contextlib
import io
import os
import traceback

from docutils import nodes
from sphinx.util.docutils import SphinxDirective


class GbtRun(SphinxDirective):
    has_content = True
    option_spec = {}

    def run(self):
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        code = "\n".join(self.content)
        namespace = self.env.temp_data.setdefault("gbt_run_namespace", {"__name__": "__main__"})
        top = os.path.normpath(os.path.join(self.env.srcdir, self.config.gbt_run_directory))
        out = io.StringIO()
        cwd = os.getcwd()
        try:
            os.chdir(top)
            with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
                exec(compile(code, f"<{self.env.docname}: gbt-run at line {self.lineno}>", "exec"), namespace)
        except Exception:
            plt.close("all")
            raise self.error("the tutorial's code failed:\n" + out.getvalue() + traceback.format_exc())
        finally:
            os.chdir(cwd)
        result = [nodes.literal_block(code, code, language="python")]
        printed = out.getvalue()
        if printed:
            result.append(nodes.literal_block(printed, printed, language="text", classes=["gbt-run-output"]))
        for num in plt.get_fignums():
            buf = io.BytesIO()
            plt.figure(num).savefig(buf, format="png", dpi=80, bbox_inches="tight")
            data = base64.b64encode(buf.getvalue()).decode()
            result.append(nodes.raw("", f'<img class="gbt-run-figure" alt="figure drawn by the code above" '
                                        f'src="data:image/png;base64,{data}"/>', format="html"))
        plt.close("all")
        self.env.note_reread()  # the output is the code's, run again at every build
        return result


def setup(app):
    app.add_config_value("gbt_run_directory", "../..", "env")
    app.add_directive("gbt-run", GbtRun)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
