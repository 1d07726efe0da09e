"""The abstract values of :mod:`relax_ref.testing.tvm_pass_extract` and what it finds (pairs and
unfollowed assertion sites)."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..dpl import pattern as _pat
from .tvm_corpus import Definition

#: Passes run around the pass a test is about (cleanup, or the analysis a pass needs first)
AUXILIARY = frozenset({"Normalize", "DeadCodeElimination", "AnnotateTIROpPattern", "CanonicalizeBindings"})

# ---------------------------------------------------------------------------------------------------
# Abstract values
# ---------------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Unknown:
    reason: str


@dataclass(frozen=True)
class Lit:
    """A Python literal (numbers, strings, booleans, None and containers of them)."""

    value: Any


@dataclass(frozen=True)
class Values:
    """A tuple or list holding values that are not all literals."""

    items: Tuple[Any, ...]
    kind: str = "tuple"


@dataclass(frozen=True)
class MapV:
    """A dict literal holding values that are not all literals (keys are literals)."""

    items: Tuple[Tuple[Any, Any], ...]


@dataclass(frozen=True, eq=False)
class LambdaV:
    """``lambda i, j: (i // 4, j)``: kept as syntax; an index map when a pass needs one."""

    node: Any


@dataclass(frozen=True)
class Namespace:
    """A dotted path of the TVM API (``tvm.relax.transform``) or a builtin name."""

    path: str


#: Constants of TVM's Python API that pass tests write into TVMScript: the codes of the shape-heap
#: builtins (CALL.SHAPEHEAP.2)
KNOWN_CONSTANTS = {
    **{f"tvm.relax.testing.runtime_builtin.MatchShapeCode.{k}": v for k, v in
       (("ASSERT_EQUAL_TO_IMM", 0), ("STORE_TO_HEAP", 1), ("NO_OP", 2), ("ASSERT_EQUAL_TO_LOAD", 3))},
    **{f"tvm.relax.testing.runtime_builtin.MakeShapeCode.{k}": v for k, v in (("USE_IMM", 0), ("LOAD_SHAPE", 1))},
}


@dataclass(frozen=True)
class Script:
    """A TVMScript definition; ``wrap`` when a lone function was put into a module."""

    defn: Definition
    wrap: bool = False


@dataclass(frozen=True)
class PassCall:
    """``relax.transform.NAME(*args, **kwargs)``; ``args`` hold :class:`Lit` values when literal."""

    name: str
    args: Tuple[Any, ...] = ()
    kwargs: Tuple[Tuple[str, Any], ...] = ()
    context: Tuple[Tuple[str, Any], ...] = ()   # the PassContext options where it was applied

    @property
    def literal(self) -> bool:
        """Whether every argument is data: literals, containers of data, dataflow patterns."""
        try:
            for a in list(self.args) + [v for _, v in self.kwargs]:
                to_python(a)
        except NotData:
            return False
        return True

    def python_args(self) -> Tuple[list, dict]:
        return [to_python(a) for a in self.args], {k: to_python(v) for k, v in self.kwargs}

    def arg(self, i: int, name: str, default: Any = None) -> Any:
        """The value of argument ``i`` / keyword ``name`` (``default`` when absent)."""
        args, kwargs = self.python_args()
        if i < len(args):
            return args[i]
        return kwargs.get(name, default)

    def describe(self) -> str:
        parts = [_short(a) for a in self.args]
        parts += [f"{k}={_short(v)}" for k, v in self.kwargs]
        return f"{self.name}({', '.join(parts)})"


def _short(v: Any) -> str:
    if isinstance(v, Lit):
        text = repr(v.value)
    elif isinstance(v, Values):
        text = ("[" if v.kind == "list" else "(") + ", ".join(_short(x) for x in v.items) + \
            ("]" if v.kind == "list" else ")")
    elif type(v).__module__.startswith("relax_ref.dpl"):
        text = f"<{type(v).__name__}>"
    else:
        text = "?"
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True)
class Seq:
    passes: Tuple[Any, ...]


@dataclass(frozen=True)
class Applied:
    base: Any
    chain: Tuple[PassCall, ...]


@dataclass(frozen=True)
class Item:
    """``mod["name"]``."""

    base: Any
    key: str


@dataclass(frozen=True)
class ParamRef:
    """``Module["func"].params[index]``: a parameter of a function of a TVMScript definition, resolved
    against the parsed module when the pass is built (``index`` None: the parameter list)."""

    script: Any
    func: str
    index: Optional[int]


@dataclass(frozen=True)
class ParamSlice:
    """``Module["func"].params[start:stop]``."""

    script: Any
    func: str
    start: Optional[int]
    stop: Optional[int]


@dataclass(frozen=True)
class Method:
    """A method of a dataflow pattern, looked up (``p.has_dtype``)."""

    obj: Any
    name: str


def is_dpl(v: Any) -> bool:
    return type(v).__module__.startswith("relax_ref.dpl")


@dataclass
class Func:
    node: ast.AST
    env: "Env"
    self_obj: Any = None
    defaults: Tuple[Any, ...] = ()
    kw_defaults: Dict[str, Any] = field(default_factory=dict)


@dataclass
class ClassV:
    node: ast.ClassDef
    env: "Env"
    bases: Tuple[Any, ...]
    attrs: Dict[str, Any]

    def lookup(self, name: str) -> Any:
        if name in self.attrs:
            return self.attrs[name]
        for b in self.bases:
            if isinstance(b, ClassV):
                v = b.lookup(name)
                if v is not None:
                    return v
        return None

    def mro_names(self) -> List[str]:
        names = list(self.attrs)
        for b in self.bases:
            if isinstance(b, ClassV):
                names += [n for n in b.mro_names() if n not in names]
        return names


@dataclass
class Inst:
    cls: ClassV
    attrs: Dict[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------------------------------------
# Results
# ---------------------------------------------------------------------------------------------------


@dataclass
class Pair:
    """One comparison: ``expected_chain(expected) == chain(input)`` (``select``: compare one function)."""

    file: str
    line: int
    test: str
    input: Definition
    input_wrap: bool
    chain: Tuple[PassCall, ...]
    expected: Definition
    expected_wrap: bool
    expected_chain: Tuple[PassCall, ...] = ()
    select: Optional[str] = None
    expected_select: Optional[str] = None
    map_free_vars: bool = False      # as the assertion asks (``map_free_vars=True``)

    @property
    def pass_name(self) -> str:
        return primary_pass(self.chain)


@dataclass
class Site:
    """An equality assertion that did not give a pair, with the reason."""

    file: str
    line: int
    test: str
    reason: str
    pass_name: str = ""


def primary_pass(chain: Sequence[PassCall]) -> str:
    """The pass a chain is about: its last pass that is not auxiliary, else its first."""
    names = [p.name for p in chain]
    main = [n for n in names if n not in AUXILIARY]
    return main[-1] if main else (names[0] if names else "")


class NotData(Exception):
    """A value that is not plain data (a literal, a container of data, or a pattern)."""


def to_python(v: Any) -> Any:
    """The Python value of an abstract value of the interpreter, or NotData."""
    if isinstance(v, (ParamRef, ParamSlice)) and (not isinstance(v, ParamRef) or v.index is not None):
        return v           # resolved against the parsed input module when the pass is built
    if isinstance(v, (Script, LambdaV)):
        return v           # parsed / translated when the pass is built
    if isinstance(v, MapV):
        return {k: to_python(x) for k, x in v.items}
    if isinstance(v, Lit):
        return v.value
    if isinstance(v, Values):
        items = [to_python(x) for x in v.items]
        return tuple(items) if v.kind == "tuple" else items
    if isinstance(v, (_pat.DFPattern, _pat.PatternSeq)):
        return v
    raise NotData(type(v).__name__)


__all__ = ["NotData", "to_python", "MapV", "LambdaV", "ParamRef", "ParamSlice", "Unknown", "Lit", "Values", "Namespace", "Script", "PassCall", "Seq", "Applied", "Item", "Method", "Func",
           "ClassV", "Inst", "Pair", "Site", "primary_pass", "AUXILIARY", "KNOWN_CONSTANTS", "is_dpl"]
