# Sphinx configuration of gbt's documentation site (scripts/docs.sh builds it:
# `make docs`).  The pages are Markdown (MyST); the existing docs/*.md and
# the Python package's README are included, not copied, so they cannot
# drift.  Three extensions of our own (_ext/) generate the parameters page
# from the library's table, the C reference from gbt.h's comments, and run
# the tutorials' code.
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "_ext"))

import gbt  # noqa: E402  (the built package: scripts/docs.sh sets the paths)

project = "gbt"
author = "the gbt developers"
copyright = "the gbt developers"
release = gbt.__version__
version = release

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "gbt_params",
    "gbt_capi",
    "gbt_run",
    "gbt_links",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build", "requirements.txt"]
myst_enable_extensions = ["colon_fence", "dollarmath"]
myst_heading_anchors = 3
suppress_warnings = []

html_theme = "alabaster"
html_title = f"gbt {release}"
html_theme_options = {"description": "gradient-boosted trees, the same model on CPU and GPU",
                      "fixed_sidebar": True, "page_width": "1100px", "sidebar_width": "240px"}
html_sidebars = {"**": ["about.html", "searchbox.html", "navigation.html"]}
html_show_sourcelink = False
html_static_path = ["_static"]
html_css_files = ["gbt.css"]

# Python reference: docstrings in NumPy style.
autodoc_member_order = "bysource"
autodoc_typehints = "description"
napoleon_google_docstring = False
napoleon_use_rtype = False

# Nitpicky mode (-n) checks every internal reference (pages, sections, C
# and Python objects of gbt).  Types of other projects have no pages here
# (no intersphinx: the build needs no network), so they are not checked.
# Types named in docstrings' free text ("array of shape (n_samples,)",
# numpy's, pandas') are not checked; gbt's own classes are.
nitpick_ignore_regex = [
    (r"py:class", r"(?!gbt\.|Booster$|Dataset$|DMatrix$|QuantileDMatrix$|DataIter$|GBT|XGB).*"),
    (r"c:identifier", r"(size_t|int8_t|int16_t|int32_t|int64_t|uint8_t|uint16_t|uint32_t|uint64_t|FILE|va_list|bool)"),
]


def _skip_member(app, what, name, obj, skip, options):
    # scikit-learn adds set_fit_request & co. to every estimator (metadata
    # routing); their docstrings point into scikit-learn's own manual.
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def setup(app):
    app.connect("autodoc-skip-member", _skip_member)
