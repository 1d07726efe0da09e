"""Sphinx configuration of the relax-ref documentation: the guides and docs of this folder (Markdown,
through MyST) and an API reference generated from the docstrings of relax_ref, relax_jax and
relax_conformance.

    pip install -e ".[docs]" && sphinx-build -b html docs docs/_build/html

The list of modules is computed here on every build (``api/index.rst``, not kept in the repository);
autosummary then writes one page per module from its docstrings.
"""

import pkgutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (ROOT, ROOT / "executors", ROOT / "conformance"):
    if str(p) not in sys.path:
        sys.path.insert(0, str(p))

from relax_ref import __version__  # noqa: E402

project = "relax-ref"
release = version = __version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.autosummary", "sphinx.ext.viewcode"]
source_suffix = {".md": "markdown", ".rst": "restructuredtext"}
exclude_patterns = ["_build", "campaign-tvm-0.25/**"]
myst_heading_anchors = 3
autosummary_generate = True
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": True}
autodoc_member_order = "bysource"
html_theme = "alabaster"
html_title = f"relax-ref {release}"
suppress_warnings = ["myst.xref_missing", "myst.header"]

#: modules left out of the reference: entry points that act when imported
SKIP = ("__main__",)


def _modules():
    import relax_conformance
    import relax_jax
    import relax_ref

    out = []
    for pkg in (relax_ref, relax_jax, relax_conformance):
        out.append(pkg.__name__)
        for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
            if info.name.rsplit(".", 1)[-1] not in SKIP:
                out.append(info.name)
    return out


def _write_api_index() -> None:
    lines = ["API reference", "=============", "",
             "Generated from the docstrings: one page per module of ``relax_ref`` (the reference), "
             "``relax_jax`` (the JAX executor) and ``relax_conformance`` (the conformance runner).", "",
             ".. autosummary::", "   :toctree: generated", ""]
    lines += [f"   {m}" for m in _modules()]
    api = HERE / "api"
    api.mkdir(exist_ok=True)
    text = "\n".join(lines) + "\n"
    index = api / "index.rst"
    if not index.exists() or index.read_text() != text:
        index.write_text(text)


_write_api_index()
