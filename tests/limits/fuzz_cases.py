"""Helpers of the fuzzing runs' regression tests (``tests/limits/test_fuzz_*.py``): the text of a
module around a Relax function, and a program's outcome on the reference and on relax_jax."""

from __future__ import annotations

from typing import Any, List, Tuple

import numpy as np

from limits.reproducers import on_both

#: the head of a module's text: the imports and ``class Module:``, members follow at one indent
HEAD = "from tvm.script import ir as I, relax as R, tirx as T\n\n\n@I.ir_module\nclass Module:\n"
#: :data:`HEAD` and the decorator of a Relax function
FUNC_HEAD = HEAD + "    @R.function\n"


def relax_main(params: str, body: str, ret: str = "", *, pure: bool = True, name: str = "main") -> str:
    """A module of one Relax function ``name(params) -> ret`` whose body is ``body``'s lines (declared
    ``pure=False`` unless ``pure``)."""
    lines = "".join(f"        {line}\n" for line in body.strip().splitlines())
    deco = "@R.function" if pure else "@R.function(pure=False)"
    return HEAD + f"    {deco}\n    def {name}({params}){' -> ' + ret if ret else ''}:\n{lines}"


def results_on_both(mod, *args, **limits) -> List[Any]:
    """``main(*args)`` of the parsed module ``mod`` on the reference interpreter and on relax_jax (with
    ``limits``): for each, the result, or the RelaxError it raised."""
    import relax_jax
    import relax_ref
    from relax_ref.errors import RelaxError

    out: List[Any] = []
    for run in (lambda: relax_ref.Interpreter(mod, **limits)("main", *args),
                lambda: relax_jax.compile(mod, **limits)("main", *args)):
        try:
            out.append(run())
        except RelaxError as e:
            out.append(e)
    return out


def kinds_on_both(text: str, *args, messages: bool = False, **limits) -> List[Tuple[str, Any]]:
    """``main(*args)`` of the program ``text`` on both: for each, ``("value", result)`` or ``(the
    error's kind, its message if messages else None)``."""
    import relax_ref

    return [("value", o) if not isinstance(o, Exception) else (o.kind, str(o) if messages else None)
            for o in results_on_both(relax_ref.parse(text), *args, **limits)]


def lists_on_both(text: str, *args) -> List[Tuple[str, Any]]:
    """:func:`limits.reproducers.on_both` with the values as lists."""
    return [(kind, None if value is None else np.asarray(value).tolist()) for kind, value in on_both(text, *args)]


__all__ = ["HEAD", "FUNC_HEAD", "relax_main", "results_on_both", "kinds_on_both", "lists_on_both"]
