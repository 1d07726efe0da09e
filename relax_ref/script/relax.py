"""``from relax_ref.script import relax as R``: the ``@R.function`` decorator and inert markers.

``@R.function`` (options ``pure=``, ``private=``, ``check_well_formed=``, and relax-ref's
``normalize=``) parses the decorated function's source with the TVMScript parser and returns the
:class:`~relax_ref.ir.Function` (normalized and checked unless told otherwise). Inside an
``@I.ir_module`` class it leaves the method to the class decorator. Every other attribute --
``R.Tensor``, ``R.Shape``, ``R.Prim``, ``R.Tuple``, ``R.Object``, ``R.Callable``, ``R.add``, ... -- is
an inert marker, so annotations evaluated by Python at definition time do nothing.
"""

from __future__ import annotations

from .parser.decorators import Marker, function_decorator

_OPTIONS = ("pure", "private", "check_well_formed", "normalize")


def function(f=None, *, pure: bool = True, private: bool = False, check_well_formed: bool = True,
             normalize: bool = True):
    """Decorator: parse a Relax function written in TVMScript (TEXT.1)."""
    return function_decorator(f, normalize)


Tensor = Marker("R.Tensor")
Shape = Marker("R.Shape")
Prim = Marker("R.Prim")
Tuple = Marker("R.Tuple")
Object = Marker("R.Object")
Callable = Marker("R.Callable")


def __getattr__(name: str) -> Marker:
    if name.startswith("_"):
        raise AttributeError(name)
    return Marker(f"R.{name}")


__all__ = ["function", "Tensor", "Shape", "Prim", "Tuple", "Object", "Callable"]
