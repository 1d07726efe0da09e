"""The TVM releases whose pass output relax-ref can write: one table of what differs (PASS.RELEASE.1-3).

Passes that follow TVM's output form (LegalizeOps and the kernels it builds, RemoveUnusedParameters and
FuseTIR, which runs it) take ``release=`` (``"0.25"``, ``"0.27"``; ``None`` is :data:`CURRENT`). A release
changes only the *form* of the output, never what the output computes (PASS.RELEASE.2): every entry
below is a choice between two forms with the same values on every input the spec allows.

===============================  ==========================  ====================================
form                             0.25                        0.27
===============================  ==========================  ====================================
``shape_to_tensor``              kept (the VM builtin)       a kernel of the known values, else
                                                             ``relax.run.shape_to_tensor``
``nn.dropout``                   kept                        ``(x, ones)`` by one kernel
grouped ``conv2d`` with          kept                        legalized (TOPI's
symbolic channels                                            ``group_conv2d_nchw``)
dilated ``conv2d_transpose``     kept                        legalized (dilated kernel)
read region of an index that     the index                   the whole axis
holds ``if_then_else``
RemoveUnusedParameters'          ``R.Prim(value=n)``         ``R.Shape([n])``
symbolic parameters
===============================  ==========================  ====================================

Adding a release is one :class:`Release` entry here (``replace`` of the previous one) plus its rules.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Dict, Optional, Tuple

from ..errors import UnsupportedError


@dataclass(frozen=True)
class Release:
    """The output forms of one TVM release (see the module docstring's table)."""

    name: str                           # "0.25"
    release: Tuple[int, int]
    legalize_shape_to_tensor: bool      # shape_to_tensor becomes a kernel / the packed builtin
    legalize_dropout: bool              # nn.dropout becomes (x, ones)
    legalize_symbolic_group_conv: bool  # grouped conv2d whose channel counts are symbolic
    legalize_dilated_conv_transpose: bool
    whole_axis_conditional_reads: bool  # read region of an if_then_else index: the whole axis
    shape_symbol_params: bool           # RemoveUnusedParameters passes symbols as R.Shape([n])


TVM025 = Release(
    name="0.25",
    release=(0, 25),
    legalize_shape_to_tensor=False,
    legalize_dropout=False,
    legalize_symbolic_group_conv=False,
    legalize_dilated_conv_transpose=False,
    whole_axis_conditional_reads=False,
    shape_symbol_params=False,
)

#: 0.27 legalizes what 0.25 keeps and passes symbolic variables as shapes
TVM027 = replace(
    TVM025,
    name="0.27",
    release=(0, 27),
    legalize_shape_to_tensor=True,
    legalize_dropout=True,
    legalize_symbolic_group_conv=True,
    legalize_dilated_conv_transpose=True,
    whole_axis_conditional_reads=True,
    shape_symbol_params=True,
)

#: every release by name, oldest first
RELEASES: Dict[str, Release] = {r.name: r for r in (TVM025, TVM027)}
#: the current release: what ``release=None`` means
CURRENT = TVM027


def get_release(name: Optional[str]) -> Release:
    """The release named ``name`` (``None``: :data:`CURRENT`); UnsupportedError for another name."""
    if name is None:
        return CURRENT
    if isinstance(name, Release):
        return name
    try:
        return RELEASES[name]
    except (KeyError, TypeError):
        raise UnsupportedError(f"unknown TVM release {name!r} (expected one of "
                               f"{', '.join(repr(n) for n in RELEASES)})") from None


def release_of_tag(tag: str) -> str:
    """The release a TVM git tag or branch writes (PASS.RELEASE.3): ``v0.25.0`` -> ``"0.25"``; a
    branch (``main``) or a tag after the newest release -> :data:`CURRENT`; a tag before 0.25 ->
    the oldest release."""
    m = re.fullmatch(r"v?(\d+)\.(\d+)(?:\.\d+)?(?:[.-]?\w*)?", str(tag))
    if m is None:
        return CURRENT.name
    ver = (int(m.group(1)), int(m.group(2)))
    best = TVM025
    for r in RELEASES.values():
        if r.release <= ver and r.release > best.release:
            best = r
    return best.name


__all__ = ["Release", "TVM025", "TVM027", "RELEASES", "CURRENT", "get_release", "release_of_tag"]
