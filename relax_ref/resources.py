"""Where the data that ships with relax-ref is found: the conformance cases, the spec pages, the list
of known divergences, the per-operator agreement with TVM and the JSON Schemas of the case format.

An installed wheel carries them as package data under ``relax_ref/_data/`` (found with
:mod:`importlib.resources`, so ``relax-conformance run`` works from any directory); a source checkout
(an editable install, or the repository on ``PYTHONPATH``) reads them where they are maintained in
the repository. :data:`DATA` is the one table of both places: the build (``setup.py``) copies each
repository path to its package name, and :func:`data_path` looks the name up.

This module imports nothing but the standard library: the build loads it before relax-ref is
installed.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Dict, Optional

#: package data name -> its path in the repository (a directory or a file)
DATA: Dict[str, str] = {
    "cases": "conformance/cases",
    "divergences.json": "conformance/divergences.json",
    "tvm_agreement.json": "conformance/tvm_agreement.json",
    "schemas": "conformance/schemas",
    "spec": "spec",
}

#: repository paths under a :data:`DATA` directory that stay out of the package (development tools)
EXCLUDE: Dict[str, tuple] = {"spec": ("tools",)}

#: where the data lies inside the installed package
PACKAGE_DIR = "_data"


class DataNotFound(LookupError):
    """A data file or directory is neither in the installed package nor in a source checkout."""


def source_root() -> Optional[Path]:
    """The repository checkout this module was imported from, or None for an installed wheel."""
    root = Path(__file__).resolve().parents[1]
    if (root / "pyproject.toml").is_file() and (root / "conformance").is_dir():
        return root
    return None


def packaged(name: str) -> Optional[Path]:
    """``name`` as package data of the installed wheel (None when absent, e.g. in a checkout)."""
    try:
        base = resources.files(__package__) / PACKAGE_DIR / name
    except (ModuleNotFoundError, TypeError):  # pragma: no cover - imported outside its package
        return None
    # pip installs wheels as plain files; a zipped installation has no Path to hand out
    if isinstance(base, Path) and base.exists():
        return base
    return None


def data_path(name: str) -> Path:
    """The file or directory of the shipped data ``name`` (a key of :data:`DATA`): the installed
    package data first, else the file in the source checkout."""
    if name not in DATA:
        raise KeyError(f"unknown data {name!r}; known: {', '.join(sorted(DATA))}")
    found = packaged(name)
    if found is not None:
        return found
    root = source_root()
    if root is not None and (root / DATA[name]).exists():
        return root / DATA[name]
    raise DataNotFound(f"relax-ref data {name!r} is missing: neither in the installed package "
                       f"({__package__}/{PACKAGE_DIR}/{name}) nor in a source checkout ({DATA[name]}); "
                       f"reinstall relax-ref from its wheel")


def source_path(name: str) -> Path:
    """Where ``name`` is maintained in the repository (for the commands that regenerate it); raises
    :class:`DataNotFound` outside a checkout."""
    root = source_root()
    if root is None:
        raise DataNotFound(f"{DATA[name]} is maintained in the relax-ref repository; this command needs "
                           f"a source checkout, not an installed wheel")
    return root / DATA[name]


__all__ = ["DATA", "DataNotFound", "data_path", "packaged", "source_path", "source_root"]
