"""``from relax_ref.script import tir as T``: the ``@T.prim_func`` decorator and inert markers.

``@T.prim_func`` (options ``private=``, ``s_tir=``, ``check_well_formed=``, and relax-ref's
``normalize=``) parses the decorated function's source and returns the
:class:`~relax_ref.ir.tir.PrimFunc`; inside an ``@I.ir_module`` class it leaves the method to the
class decorator. ``T.Buffer(...)``, ``T.handle``, ``T.int64``, ... are inert markers;
``n = T.int64()`` at module level declares a symbolic variable ``n`` for the decorated functions.
"""

from __future__ import annotations

from .parser.decorators import Marker, function_decorator


def prim_func(f=None, *, private: bool = False, s_tir: bool = False, check_well_formed: bool = True,
              normalize: bool = True):
    """Decorator: parse a TensorIR function written in TVMScript (TEXT.1)."""
    return function_decorator(f, normalize)


Buffer = Marker("T.Buffer")
handle = Marker("T.handle")


def __getattr__(name: str) -> Marker:
    if name.startswith("_"):
        raise AttributeError(name)
    return Marker(f"T.{name}")


__all__ = ["prim_func", "Buffer", "handle"]
