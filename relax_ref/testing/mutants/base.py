"""Machinery of the mutant zoo: a mutant is a correct pass with one injected fault.

A :class:`MutantPass` runs the real pass and injects its fault from the outside, in one of three
ways (the pass sources stay untouched):

* ``post(before, after)`` -- rewrite the pass's output (the usual way: drop a binding, change a
  kernel's loop bound, reuse a storage ...);
* ``pre(mod)`` -- rewrite the pass's input (an attribute the pass then ignores);
* ``patches`` -- replace a helper of the pass's module while it runs (``(owner, attribute,
  make_replacement(original))``), for faults in the pass's own analysis such as a liveness rule.

Each hook returns ``None`` when it finds nothing to change, and the mutant then returns the real
pass's output unchanged: a program exposes the fault only when it contains what the fault needs.
A :class:`MutantSpec` describes a mutant for the zoo: its name, the pass it breaks, the fault in
one line, the TVM bug (class) it is modelled on, and how to build it.

Helpers for faults: :func:`rewrite_kernels` (TensorIR rewriting of chosen PrimFuncs),
:class:`BindingRewriter` (Relax bindings everywhere, branches and closures included) and
:func:`renormalize_or_raise`.
"""

from __future__ import annotations

import re
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field, replace
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

from ...ir import expr as rx
from ...ir import prim_expr as P
from ...ir import tir
from ...ir.functor import ExprMutator, PrimExprMutator, StmtMutator
from ...ir.module import IRModule
from ...transform import Pass
from ...transform.utils import renormalize

Patch = Tuple[Any, str, Callable[[Any], Any]]


@contextmanager
def patched(owner: Any, attr: str, make: Callable[[Any], Any]):
    """Replace ``owner.attr`` by ``make(original)`` for the duration of the ``with`` block."""
    original = getattr(owner, attr)
    setattr(owner, attr, make(original))
    try:
        yield
    finally:
        setattr(owner, attr, original)


class MutantPass(Pass):
    """``inner`` with a fault injected by ``pre``, ``patches`` and/or ``post`` (module docstring)."""

    opt_level = 0

    def __init__(self, inner: Callable[[IRModule], IRModule], name: str, *,
                 pre: Optional[Callable[[IRModule], Optional[IRModule]]] = None,
                 post: Optional[Callable[[IRModule, IRModule], Optional[IRModule]]] = None,
                 patches: Sequence[Patch] = ()) -> None:
        self.inner = inner
        self.name = name
        self.pre = pre
        self.post = post
        self.patches = tuple(patches)
        self.fired = 0  # how many outputs differ from the real pass's (for tests of the zoo)

    def transform(self, mod: IRModule) -> IRModule:
        src = mod
        if self.pre is not None:
            new = self.pre(mod)
            if new is not None:
                src = new
                self.fired += 1
        with ExitStack() as stack:
            for owner, attr, make in self.patches:
                stack.enter_context(patched(owner, attr, make))
            out = self.inner(src)
        if self.post is not None:
            new = self.post(mod, out)
            if new is not None:
                self.fired += 1
                out = new
        return out


@dataclass(frozen=True)
class MutantSpec:
    """One mutant of the zoo. ``build(inner)`` makes the mutant of the pass instance ``inner``;
    ``prepare`` (pass names) replaces the catalog's prepare list of ``target`` when the fault needs
    a different input (e.g. ``R.reshape`` before memory planning)."""

    name: str
    target: str
    fault: str
    modelled_on: str
    build: Callable[[Callable], Pass] = field(repr=False, compare=False)
    prepare: Optional[Tuple[str, ...]] = None

    def make(self, inner: Optional[Callable] = None) -> Pass:
        """The mutant of ``inner`` (default: relax-ref's ``target`` pass)."""
        from ..passes import ref_pass

        if inner is None:
            inner = ref_pass(self.target)
            if inner is None:
                raise LookupError(f"this build has no pass {self.target}")
        return self.build(inner)

    def prepare_passes(self) -> List[Any]:
        from ..passes import CATALOG, prepare_passes, ref_pass, spec_for

        if self.prepare is None:
            return prepare_passes(CATALOG.get(self.target) or spec_for(self.target))
        return [p for p in (ref_pass(n) for n in self.prepare) if p is not None]

    def gen_config(self, base=None):
        from ..passes import spec_for

        return spec_for(self.target).gen_config(base)

    def check_kwargs(self) -> Dict[str, Any]:
        """Keyword arguments of ``check_pass`` for this mutant (prepare passes, config, signature)."""
        from ..passes import spec_for

        return {"prepare": self.prepare_passes(), "config": self.gen_config(),
                "signature": spec_for(self.target).signature}


def mutant(inner: Callable, short: str, **hooks) -> MutantPass:
    """A :class:`MutantPass` named ``<inner>[<short>]``."""
    base = getattr(inner, "name", None) or getattr(inner, "__name__", None) or type(inner).__name__
    return MutantPass(inner, f"{base}[{short}]", **hooks)


class IllFormedOutput(Exception):
    """The rewritten module is not well formed (the normalizer found it out): reported under the
    ``ill-formed`` symptom, as the oracle would have reported the module itself."""

    symptom = "ill-formed"


def renormalize_or_raise(mod: IRModule) -> IRModule:
    """Re-normalize a rewritten module. A well-formedness error is raised as :class:`IllFormedOutput`;
    any other failure is the faulty pass crashing (as it would in TVM)."""
    from ...errors import WellFormedError

    try:
        return renormalize(mod)
    except WellFormedError as err:
        raise IllFormedOutput(str(err)) from err


# ---------------------------------------------------------------------------------------------------
# TensorIR rewriting
# ---------------------------------------------------------------------------------------------------


class ExprRewrite(PrimExprMutator):
    """Post-order scalar rewriting with ``fn(e) -> new expression | None`` (None keeps ``e``)."""

    def __init__(self, fn: Callable[[P.PrimExpr], Optional[P.PrimExpr]]) -> None:
        self.fn = fn
        self.count = 0

    def visit(self, e: P.PrimExpr) -> P.PrimExpr:
        e2 = super().visit(e)
        r = self.fn(e2)
        if r is not None and r is not e2:
            self.count += 1
            return r
        return e2


class StmtRewrite(StmtMutator):
    """Statement rewriting with ``fn(stmt) -> new statement | None`` applied after the children, and
    an optional scalar rewrite."""

    def __init__(self, fn: Optional[Callable[[tir.Stmt], Optional[tir.Stmt]]] = None,
                 expr_fn: Optional[Callable[[P.PrimExpr], Optional[P.PrimExpr]]] = None) -> None:
        super().__init__(ExprRewrite(expr_fn) if expr_fn is not None else None)
        self.fn = fn
        self.count = 0

    def visit(self, s):
        s2 = super().visit(s)
        if s2 is None or self.fn is None:
            return s2
        r = self.fn(s2)
        if r is not None and r is not s2:
            self.count += 1
            return r
        return s2

    @property
    def changed(self) -> int:
        return self.count + (self.expr_mutator.count if self.expr_mutator is not None else 0)


def new_prim_funcs(before: IRModule, after: IRModule) -> List[str]:
    """Names of the PrimFuncs of ``after`` that are not (the same object) in ``before``."""
    old = {id(f) for _, f in before.prim_funcs()}
    return [gv.name_hint for gv, f in after.prim_funcs() if id(f) not in old]


def name_matches(name: str, bases: Iterable[str]) -> bool:
    """``name`` is one of ``bases``, possibly with a numeric suffix (``floor_mod1``)."""
    return any(re.fullmatch(re.escape(b) + r"\d*", name) for b in bases)


def rewrite_kernels(before: IRModule, after: IRModule, select: Callable[[str, tir.PrimFunc], bool],
                    make: Callable[[tir.PrimFunc], StmtRewrite]) -> Optional[IRModule]:
    """Rewrite the bodies of the PrimFuncs the pass created (``new_prim_funcs``) that ``select``
    accepts, with the rewriter ``make(func)``; None when nothing changed."""
    changed = {}
    for name in new_prim_funcs(before, after):
        f = after[name]
        if not select(name, f):
            continue
        rw = make(f)
        body = rw.visit(f.body)
        if rw.changed:
            changed[name] = replace(f, body=body)
    if not changed:
        return None
    items = {gv: changed.get(gv.name_hint, f) for gv, f in after.functions_items()}
    return IRModule(items, after.attrs, after.global_infos)


def kernel_buffers(f: tir.PrimFunc) -> List[tir.Buffer]:
    return [b for _, b in f.buffer_map]


def is_const(e: P.PrimExpr) -> bool:
    return isinstance(e, (P.IntImm, P.FloatImm))


# ---------------------------------------------------------------------------------------------------
# Relax rewriting
# ---------------------------------------------------------------------------------------------------


def symbolic_dims_at_zero(buffers: Set[int]) -> StmtRewrite:
    """A rewrite that reads the buffers of ``buffers`` (by ``id``) at index 0 along each symbolic dim
    (a symbolic dim taken for a broadcast one)."""
    def fn(e):
        if not isinstance(e, tir.BufferLoad) or id(e.buffer) not in buffers:
            return None
        idx = list(e.indices)
        hit = False
        for k, d in enumerate(e.buffer.shape):
            if not is_const(d) and not (isinstance(idx[k], P.IntImm) and idx[k].value == 0):
                idx[k] = P.IntImm(0, idx[k].dtype)
                hit = True
        return tir.BufferLoad(e.buffer, tuple(idx), e.dtype) if hit else None

    return StmtRewrite(expr_fn=fn)


class BindingRewriter(ExprMutator):
    """Visits every binding of every Relax function (If branches and closures included) and asks
    ``fn(binding, rewriter)`` for a replacement: a binding, a list of bindings, None to drop it,
    or the binding itself to keep it. ``var_remap`` renames later uses."""

    def __init__(self, fn: Callable[[rx.Binding, "BindingRewriter"], Any]) -> None:
        super().__init__()
        self.fn = fn
        self.changed = 0

    def visit_binding(self, b: rx.Binding):
        b2 = super().visit_binding(b)
        r = self.fn(b2, self)
        if r is not b2:
            self.changed += 1
        return r


def rewrite_functions(mod: IRModule, fn: Callable[[str, rx.Function], Optional[rx.Function]]) -> Optional[IRModule]:
    """Apply ``fn(name, func)`` to every Relax function; re-normalized module, or None if unchanged."""
    items = {}
    changed = False
    for gv, f in mod.functions_items():
        if isinstance(f, rx.Function):
            nf = fn(gv.name_hint, f)
            if nf is not None and nf is not f:
                changed = True
                f = nf
        items[gv] = f
    if not changed:
        return None
    return renormalize_or_raise(IRModule(items, mod.attrs, mod.global_infos))


def rewrite_bindings(mod: IRModule, fn: Callable[[rx.Binding, BindingRewriter], Any],
                     only: Optional[Callable[[str, rx.Function], bool]] = None) -> Optional[IRModule]:
    """:class:`BindingRewriter` over every (selected) Relax function."""
    def each(name: str, f: rx.Function) -> Optional[rx.Function]:
        if only is not None and not only(name, f):
            return None
        rw = BindingRewriter(fn)
        nf = rw.visit_expr(f)
        return nf if rw.changed else None

    return rewrite_functions(mod, each)


def op_of(e: Any) -> Optional[str]:
    return e.op.name if isinstance(e, rx.Call) and isinstance(e.op, rx.Op) else None


def uses_in(e: Any, into: Optional[Dict[int, int]] = None, *, closures: bool = True) -> Dict[int, int]:
    """Counts of variable uses (by id) inside ``e``; ``closures=False`` skips nested functions."""
    out = into if into is not None else {}
    stack = [e]
    while stack:
        x = stack.pop()
        if isinstance(x, rx.Var):
            out[id(x)] = out.get(id(x), 0) + 1
        elif isinstance(x, rx.Call):
            stack.append(x.op)
            stack.extend(x.args)
        elif isinstance(x, rx.Tuple):
            stack.extend(x.fields)
        elif isinstance(x, rx.TupleGetItem):
            stack.append(x.tuple_value)
        elif isinstance(x, rx.If):
            stack += [x.cond, x.true_branch, x.false_branch]
        elif isinstance(x, rx.SeqExpr):
            for b in x.blocks:
                for bd in b.bindings:
                    stack.append(bd.value)
            stack.append(x.body)
        elif isinstance(x, rx.Function) and closures:
            stack.append(x.body)
    return out


__all__ = ["Patch", "patched", "MutantPass", "MutantSpec", "mutant", "renormalize_or_raise", "ExprRewrite",
           "StmtRewrite", "new_prim_funcs", "name_matches", "rewrite_kernels", "kernel_buffers", "is_const",
           "BindingRewriter", "rewrite_functions", "rewrite_bindings", "op_of", "uses_in"]
