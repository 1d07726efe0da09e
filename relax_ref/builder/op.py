"""Operator call constructors generated from the operator registry (OP.0).

Every registered operator is reachable under its TVMScript spelling without the ``R.`` prefix:
``op.add(x, y)``, ``op.matmul(a, b, out_dtype="float32")``, ``op.nn.softmax(x, axis=-1)``,
``op.image.resize2d(...)``, ``op.call_tir(gv, (x,), out_sinfo=...)``. Arguments bind exactly as in
the script (the registry's parameter names, order and defaults; :func:`relax_ref.ops.registry.build_call`),
so ``op.X(...)`` builds the same ``Call`` as ``R.X(...)`` in text. The result is raw IR without
struct info; :meth:`BlockBuilder.emit` normalizes it (struct-info inference happens there).

Misuse -- an unknown keyword, a missing argument, a value of the wrong kind -- raises
``WellFormedError`` with the caller's location. ``dir(op)`` and ``dir(op.nn)`` list the operators.
"""

from __future__ import annotations

import inspect as _inspect
from typing import Any, Callable, Dict, List

from ..errors import ParseError, WellFormedError
from ..ir import expr as rx
from ..ops import registry
from ._span import caller_span

_CACHE: Dict[str, Any] = {}


def _signature(opdef: registry.OpDef) -> _inspect.Signature:
    params = []
    for p in opdef.params:
        default = _inspect.Parameter.empty if p.required else p.default
        params.append(_inspect.Parameter(p.name, _inspect.Parameter.POSITIONAL_OR_KEYWORD, default=default))
    try:
        return _inspect.Signature(params)
    except ValueError:  # a required parameter after an optional one: keyword-only tail
        fixed: List[_inspect.Parameter] = []
        seen_default = False
        for prm in params:
            if prm.default is not _inspect.Parameter.empty:
                seen_default = True
            kind = _inspect.Parameter.KEYWORD_ONLY if seen_default else prm.kind
            fixed.append(prm.replace(kind=kind))
        return _inspect.Signature(fixed)


def _make(opdef: registry.OpDef) -> Callable[..., rx.Call]:
    def build(*args: Any, **kwargs: Any) -> rx.Call:
        span = caller_span()
        try:
            return registry.build_call(opdef, args, kwargs, span)
        except ParseError as err:
            raise WellFormedError(err.message, err.span or span) from None

    short = opdef.script[2:] if opdef.script.startswith("R.") else opdef.script
    build.__name__ = short.rsplit(".", 1)[-1]
    build.__qualname__ = short
    build.__doc__ = (opdef.doc or f"``{opdef.script}``") + f"\n\nBuilds a ``{opdef.name}`` call (spec page {opdef.spec_page})."
    if opdef.parse_call is None:
        build.__signature__ = _signature(opdef)  # type: ignore[attr-defined]
    build.opdef = opdef  # type: ignore[attr-defined]
    return build


def _lookup(path: str) -> Any:
    """The constructor for ``R.<path>``, or a namespace when ``path`` is a prefix of operator
    spellings; None otherwise."""
    fn = _CACHE.get(path)
    if fn is not None:
        return fn
    opdef = registry.lookup_script("R." + path)
    if opdef is not None:
        fn = _make(opdef)
        _CACHE[path] = fn
        return fn
    prefix = "R." + path + "."
    if any(o.script.startswith(prefix) for o in registry.all_ops()):
        ns = Namespace(path)
        _CACHE[path] = ns
        return ns
    return None


def _children(prefix: str) -> List[str]:
    """Immediate names under ``R.<prefix>`` (``prefix`` empty or ending with ``.``)."""
    out = set()
    full = "R." + prefix
    for o in registry.all_ops():
        if o.script.startswith(full):
            out.add(o.script[len(full):].split(".", 1)[0])
    return sorted(out)


class Namespace:
    """A sub-namespace of operators such as ``op.nn`` or ``op.memory``."""

    def __init__(self, path: str) -> None:
        self._path = path

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        found = _lookup(f"{self._path}.{name}")
        if found is None:
            raise AttributeError(f"no operator R.{self._path}.{name}")
        return found

    def __dir__(self) -> List[str]:
        return _children(self._path + ".")

    def __repr__(self) -> str:
        return f"<operator namespace R.{self._path}>"


def __getattr__(name: str) -> Any:
    if name.startswith("__"):
        raise AttributeError(name)
    found = _lookup(name)
    if found is None:
        raise AttributeError(f"no operator R.{name}")
    return found


def __dir__() -> List[str]:
    return _children("") + ["Namespace"]


__all__: List[str] = []
