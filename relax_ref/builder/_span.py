"""Source locations for IR built from Python: the first caller frame outside the builder and the
module library, so that an error names the user's line (ERR.1)."""

from __future__ import annotations

import os
import sys
from typing import Optional

from ..errors import Span

_PKG_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_INTERNAL = (os.path.join(_PKG_DIR, "builder") + os.sep, os.path.join(_PKG_DIR, "frontend") + os.sep)


def caller_span() -> Optional[Span]:
    """A :class:`Span` for the innermost frame that is not part of :mod:`relax_ref.builder` or
    :mod:`relax_ref.frontend` (None when no such frame exists)."""
    frame = sys._getframe(1)
    while frame is not None:
        path = frame.f_code.co_filename
        if not path.startswith(_INTERNAL) and "contextlib" not in os.path.basename(path):
            return Span(path, frame.f_lineno, 1)
        frame = frame.f_back
    return None


__all__ = ["caller_span"]
