"""How IR nodes reach the TVMScript printer without importing it (the IR sits below the printer).

``IRModule.script()`` and ``str(struct_info)`` ask :func:`printer` for the printer package; the
package ``relax_ref`` names it once with :func:`set_printer` when it is first imported, which happens
before any of its modules is used, and the printer itself is imported on the first print.
"""

from __future__ import annotations

from typing import Any, Callable, Optional

from ..errors import UnsupportedError

_PROVIDER: Optional[Callable[[], Any]] = None


def set_printer(provider: Callable[[], Any]) -> None:
    """``provider()`` returns the printer package (``print_module``, ``struct_info_to_str``)."""
    global _PROVIDER
    _PROVIDER = provider


def printer() -> Any:
    if _PROVIDER is None:
        raise UnsupportedError("no TVMScript printer is installed (import relax_ref)")
    return _PROVIDER()


__all__ = ["set_printer", "printer"]
