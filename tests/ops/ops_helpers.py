"""Helpers shared by the operator tests: struct infos and calls for inference, module texts, a module
evaluated next to its legalized form, result comparison, and the TVM side of the agreement tests
(TVM's struct info converted to relax-ref's, TVM's VM run on the same text).

The test modules import it by name (``tests/ops/conftest.py`` puts this directory on the path).
"""

import itertools
import re

import numpy as np
import pytest

import relax_ref
from relax_ref.analysis.context import InferContext, make_analyzer
from relax_ref.errors import StructInfoError
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P
from relax_ref.ir.attrs import Attrs
from relax_ref.ir.functor import struct_info_prim_vars
from relax_ref.ir.struct_info import PrimStructInfo, ShapeStructInfo, TensorStructInfo, TupleStructInfo
from relax_ref.ops import registry
from relax_ref.transform.legalize_ops import LegalizeOps
from tvm_struct_info import FromTvm, as_tvm_states

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"

# ---------------------------------------------------------------------------------------------------
# Struct infos and single calls
# ---------------------------------------------------------------------------------------------------


def T(shape, dtype="float32", ndim=-1, vdevice=None):
    """``R.Tensor``'s struct info: ``shape`` is a tuple of ints and PrimExprs, a shape Var, or None
    (unknown shape of rank ``ndim``)."""
    if shape is None:
        return TensorStructInfo(None, dtype, ndim, vdevice)
    if isinstance(shape, rx.Var):
        return TensorStructInfo(shape, dtype, vdevice=vdevice)
    return TensorStructInfo(rx.ShapeExpr(tuple(shape)), dtype, vdevice=vdevice)


def pv(v, dtype="int64"):
    """``R.prim_value(v)`` with its known value (an int, a float or a PrimExpr)."""
    e = P.IntImm(v, dtype) if isinstance(v, int) else (P.FloatImm(v, dtype) if isinstance(v, float) else v)
    return rx.PrimValue(e, struct_info=PrimStructInfo(value=e))


def shape_expr(*dims):
    """``R.shape(dims)`` with its struct info."""
    values = rx.ShapeExpr(tuple(dims)).values
    return rx.ShapeExpr(values, struct_info=ShapeStructInfo(values))


def infer(op, *args, **attrs):
    """Infer ``op`` (``relax.<op>``; the prefix may be left out) with the registry's attribute
    defaults. Arguments are expressions, struct infos (wrapped in Vars) or lists of struct infos (a
    Tuple of Vars)."""
    call_args = []
    for i, a in enumerate(args):
        if isinstance(a, rx.Expr):
            call_args.append(a)
        elif isinstance(a, list):
            call_args.append(rx.Tuple(tuple(rx.Var(f"t{j}", struct_info=s) for j, s in enumerate(a)),
                                      struct_info=TupleStructInfo(tuple(a))))
        else:
            call_args.append(rx.Var(f"a{i}", struct_info=a))
    d = registry.get(op if op.startswith("relax.") else f"relax.{op}")
    full = dict(d.attr_defaults())
    full.update(attrs)
    return d.infer(rx.Call(rx.Op(d.name), tuple(call_args), Attrs(full)), InferContext(make_analyzer()))


# ---------------------------------------------------------------------------------------------------
# Module texts
# ---------------------------------------------------------------------------------------------------


def function_text(name, params, body, ret="r"):
    """``@R.function def name(params)`` with the lines of ``body``, returning ``ret``."""
    lines = "\n".join("        " + ln for ln in body.strip().split("\n"))
    tail = f"\n        return {ret}" if ret else ""
    return f"    @R.function\n    def {name}({params}):\n{lines}{tail}\n"


def module(*funcs, header=True):
    """A module with the given ``(name, params, body)`` functions, each returning ``r``."""
    return (HEADER if header else "") + "@I.ir_module\nclass Module:\n" + "".join(
        function_text(name, params, body) for name, params, body in funcs)


def call_text(params, expr, header=True):
    """A module whose ``main(params)`` returns ``r = expr``."""
    return module(("main", params, f"r = {expr}"), header=header)


def calls_text(params, exprs, header=True):
    """A module whose ``main(params)`` binds ``r0 = exprs[0]``, ... and returns them as a tuple."""
    body = "\n".join(f"r{i} = {e}" for i, e in enumerate(exprs))
    outs = ", ".join(f"r{i}" for i in range(len(exprs)))
    return (HEADER if header else "") + "@I.ir_module\nclass Module:\n" + function_text(
        "main", params, body, ret=f"({outs},)")


# ---------------------------------------------------------------------------------------------------
# Evaluation and comparison
# ---------------------------------------------------------------------------------------------------

#: what legalized bindings may call
KERNEL_CALLS = {"call_tir", "call_pure_packed", "const"}


class Both:
    """A parsed module and its legalized form, evaluated side by side; ``allow``: operators that may
    stay unlegalized."""

    def __init__(self, text, allow=()):
        self.mod = relax_ref.parse(text)
        self.legal = LegalizeOps()(self.mod)
        left = set(re.findall(r"= R\.([a-z_.0-9]+)\(", self.legal.script())) - KERNEL_CALLS - set(allow)
        assert not left, f"not legalized: {sorted(left)}"

    def ref(self, fn, *args):
        return relax_ref.evaluate(self.mod, fn, *args)

    def tir(self, fn, *args):
        return relax_ref.evaluate(self.legal, fn, *args)

    def check(self, *args, tol=1e-5, fn="main"):
        """The reference result, after checking the legalized module computes the same."""
        ref = self.ref(fn, *args)
        same(ref, self.tir(fn, *args), tol)
        return ref


_BOTH = {}


def both_of(funcs):
    """``Both`` of the module of ``(name, params, body)`` functions, built once per table."""
    key = tuple(funcs)
    if key not in _BOTH:
        _BOTH[key] = Both(module(*funcs))
    return _BOTH[key]


def same(a, b, tol=0.0, where="result"):
    """Equal structure, dtypes and shapes; float values within ``tol`` (NaN equal to NaN), all other
    values exactly equal."""
    if isinstance(a, tuple):
        assert isinstance(b, tuple) and len(a) == len(b), (where, a, b)
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, tol, f"{where}[{i}]")
        return
    a, b = np.asarray(a), np.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape, (where, a.dtype, b.dtype, a.shape, b.shape)
    if tol and a.dtype.kind == "f":
        np.testing.assert_allclose(a.astype("float64"), b.astype("float64"), rtol=tol, atol=tol, equal_nan=True,
                                   err_msg=where)
    else:
        np.testing.assert_array_equal(a, b, err_msg=where)


def as_arrays(v):
    """A result with every leaf as a numpy array (tuples kept)."""
    return tuple(as_arrays(x) for x in v) if isinstance(v, tuple) else np.asarray(v)


def flat(v):
    """The leaves of a nested tuple, in order."""
    if isinstance(v, tuple):
        for x in v:
            yield from flat(x)
    else:
        yield v


def same_values(x, y, domain=range(10)) -> bool:
    """Two PrimExprs are equal as functions of their symbolic variables on every assignment from
    ``domain`` where they are defined (for dims whose normal forms differ between two simplifiers,
    e.g. ``T.max(n - 3, 0)`` vs ``n - T.min(3, n)``). Where one side is undefined (a division by
    zero) the other must be too; at least one assignment must define both, so that two expressions
    that never evaluate are not reported equal."""
    from relax_ref.arith import eval_prim

    def value(e, env):
        try:
            return True, eval_prim(e, env)
        except Exception:  # noqa: BLE001 - undefined at this point (division by zero)
            return False, None

    vs = sorted(set(struct_info_prim_vars(ShapeStructInfo((x, y)))), key=lambda v: v.name)
    compared = 0
    for vals in itertools.product(domain, repeat=len(vs)):
        env = dict(zip(vs, vals))
        (ok_x, vx), (ok_y, vy) = value(x, env), value(y, env)
        if ok_x != ok_y or vx != vy:
            return False
        compared += ok_x
    return compared > 0


def same_sinfo(ours, theirs) -> bool:
    """Structural equality, with dims compared by the analyzer (then by value) when the forms differ."""
    if ours == theirs:
        return True
    if isinstance(ours, TupleStructInfo) and isinstance(theirs, TupleStructInfo):
        return len(ours.fields) == len(theirs.fields) and all(
            same_sinfo(a, b) for a, b in zip(ours.fields, theirs.fields))
    if isinstance(ours, TensorStructInfo) and isinstance(theirs, TensorStructInfo):
        if ours.dtype != theirs.dtype or ours.ndim != theirs.ndim:
            return False
        a, b = ours.shape_values, theirs.shape_values
        if a is None or b is None:
            return a is None and b is None
        an = make_analyzer()
        return len(a) == len(b) and all(an.can_prove_equal(x, y) or same_values(x, y) for x, y in zip(a, b))
    return False


def last_sinfo(text):
    """Parse ``text`` (without checking well-formedness): the struct info of ``main``'s last binding
    and ``main``'s symbolic variables by name."""
    mod = relax_ref.parse(text if text.startswith(HEADER) else HEADER + text, check_well_formed=False)
    f = mod["main"]
    names = {v.name: v for p in f.params for v in struct_info_prim_vars(p.struct_info)}
    return f.body.blocks[-1].bindings[-1].var.struct_info, names


# ---------------------------------------------------------------------------------------------------
# TVM (imported only by the tests that need it)
# ---------------------------------------------------------------------------------------------------


def tvm_module(text):
    """TVM's IRModule of the same TVMScript text (put in the installed release's dialect)."""
    from typing import TypeVar

    import tvm
    from tvm.script import ir as I, relax as R, tirx as T_  # noqa: E741
    from tvm_compat import tvm_text

    text = tvm_text(text if text.startswith(HEADER) else HEADER + text)
    text = text[len(HEADER):] if text.startswith(HEADER) else text  # TVM's parser reads no import
    return tvm.script.from_source(text, extra_vars={"I": I, "R": R, "T": T_, "TypeVar": TypeVar})


def tvm_sinfo(text):
    """TVM's struct info of ``main``'s last binding."""
    from tvm_compat import sinfo

    return sinfo(tvm_module(text)["main"].body.blocks[-1].bindings[-1].var)


def check_sinfo_with_tvm(text, rejects=StructInfoError, exact=True):
    """relax-ref infers the struct info TVM infers for ``main``'s last binding (``exact``: structurally
    equal, else :func:`same_sinfo`), and rejects (``rejects``) what TVM rejects."""
    pytest.importorskip("tvm")
    try:
        theirs = tvm_sinfo(text)
    except Exception:  # noqa: BLE001 - any TVM error means the call is rejected
        theirs = None
    if theirs is None:
        with pytest.raises(rejects):
            last_sinfo(text)
        return
    ours, names = last_sinfo(text)
    import tvm
    import tvm_compat

    converted = FromTvm(tvm, lambda v: names[v.name]).sinfo(theirs)
    ours = as_tvm_states(ours, tvm_compat)
    assert ours == converted if exact else same_sinfo(ours, converted), (ours, theirs)


def tvm_to_numpy(v):
    """A TVM VM result as numpy arrays (tuples for TVM arrays and tuples, scalars kept)."""
    if hasattr(v, "numpy"):
        return v.numpy()
    if isinstance(v, (list, tuple)) or hasattr(v, "__len__") and not isinstance(v, (np.ndarray, str)):
        return tuple(tvm_to_numpy(x) for x in v)
    return v


def run_tvm(text, fn_args):
    """Build ``text`` once with TVM and run every ``(function, args)``: ``[result, ...]`` in order."""
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(relax.build(tvm_module(text), target="llvm"), tvm.cpu())
    fn_args = list(fn_args)
    results = [tvm_to_numpy(vm[f](*[tvm.runtime.tensor(a) if isinstance(a, np.ndarray) else a for a in args]))
               for f, args in fn_args]
    assert len(results) == len(fn_args)
    return results


def tvm_script_signature(script):
    """The parameters of TVM's script function ``script`` (``R.nn.conv2d``)."""
    import inspect

    from tvm.script import relax as R

    f = R
    for part in script.split(".")[1:]:
        f = getattr(f, part)
    return inspect.signature(f).parameters


def same_default(ours, theirs):
    """An attribute default equals TVM's (TVM's ``None`` dtype is relax-ref's ``"void"``)."""
    return ours == theirs or (theirs is None and ours == "void")


def check_signatures_match_tvm(ops, defaults_agree=same_default):
    """Every operator (``relax.<op>``; the prefix may be left out) has TVM's script name, its
    parameters in TVM's order, and, for each attribute TVM gives a default, a default that
    ``defaults_agree(ours, theirs)`` accepts; an attribute without a default in TVM is required here."""
    import inspect

    pytest.importorskip("tvm")
    assert ops
    from tvm_compat import script_params

    for op in ops:
        d = registry.get(op if op.startswith("relax.") else f"relax.{op}")
        theirs = tvm_script_signature(d.script)
        # the installed release's spelling of the parameters (TEXT.DIALECT.3)
        spelled = script_params(d.script, [p.name for p in d.params])
        assert list(theirs) == spelled, op
        for p in d.params:
            if p.name not in spelled:
                continue
            default = theirs[p.name].default
            if p.kind != "attr":
                continue
            if default is inspect.Parameter.empty:
                assert p.required, (op, p.name)
            else:
                assert defaults_agree(p.default, default), (op, p.name, p.default, default)


def run_tvm_table(funcs, inputs):
    """TVM's results of the module of ``(name, params, body)`` functions, each function run once on
    ``inputs[name]``: ``{name: result}``."""
    return dict(zip(inputs, run_tvm(module(*funcs), inputs.items())))


#: the parameters of :data:`MANIPULATE_AND_INDEX_CALLS` (``x``'s first dim is filled in)
MANIPULATE_AND_INDEX_PARAMS = (
    'x: R.Tensor(({}, 4), "float32"), i: R.Tensor((2,), "int64"), x2: R.Tensor(({}, 4), "int64"), '
    'i2: R.Tensor((3, 2), "int64"), u: R.Tensor((3,), "float32"), v: R.Tensor((2,), "float32")')

#: a call of every manipulation and indexing operator, in its attribute variants
MANIPULATE_AND_INDEX_CALLS = (
    "R.reshape(x, (0, -1))", "R.permute_dims(x)", "R.permute_dims(x, axes=[1, 0])", "R.expand_dims(x, 1)",
    "R.squeeze(x)", "R.squeeze(x, axis=0)", "R.flatten(x)", "R.concat((x, x), axis=1)", "R.split(x, 2)",
    "R.split(x, [1, 2], axis=1)", "R.broadcast_to(x, R.shape([2, 2, 4]))", "R.collapse_sum_to(x, R.shape([1, 4]))",
    "R.collapse_sum_like(x, x)", "R.repeat(x, 2)", "R.repeat(x, 2, axis=1)", "R.tile(x, [2])", "R.flip(x, axis=1)",
    "R.stack((x, x))", "R.meshgrid((i, i))", "R.meshgrid((i, i), indexing='xy')", "R.take(x, i, axis=1)",
    "R.take(x, i, axis=1, mode='clip')", "R.strided_slice(x, [0], [1], [2])",
    "R.strided_slice(x, [0, 1], [1, 0], [2, 4], [1, 2], assume_inbound=True)",
    "R.dynamic_strided_slice(x, i, i, i)", "R.gather_elements(x, x2, axis=1)", "R.gather_nd(x, i2)",
    "R.index_tensor(x, (i,))", "R.one_hot(i, R.prim_value(1.0), R.prim_value(0.0), depth=3)",
    "R.scatter_elements(x, x2, x, reduction='add')", "R.scatter_nd(x, i2, u)",
    "R.index_put(x, (i, i), v, accumulate=True)", "R.slice_scatter(x, x, 0, 4, 1, axis=1)",
    "R.layout_transform(x, index_map=T.index_map(lambda a, b: (b // 2, a, b % 2)), "
    "pad_value=R.prim_value(T.float32(1.0)))",
)


def check_with_tvm(params, exprs, *runs, rtol=0.0):
    """The reference results of ``main(params)`` binding ``exprs`` equal TVM's VM results on every
    run's arguments (exactly, or within ``rtol`` for floats); both give one result per expression."""
    text = calls_text(params, exprs)
    mod = relax_ref.parse(text, check_well_formed=False)
    theirs = run_tvm(text, [("main", args) for args in runs])
    for args, t in zip(runs, theirs):
        ours = list(flat(relax_ref.evaluate(mod, "main", *args)))
        t = list(flat(t))
        assert len(ours) == len(t) >= len(exprs), (exprs, len(ours), len(t))
        for i, (a, b) in enumerate(zip(ours, t)):
            same(a, b, rtol, f"{exprs} result {i}")


def unlegalized_calls(mod):
    """Names of the high-level operators still called in ``main``."""
    from relax_ref.ir.functor import ExprVisitor

    found = []

    class Calls(ExprVisitor):
        def visit_Call(self, c):
            if isinstance(c.op, rx.Op) and c.op.name not in ("relax.call_tir", "relax.tensor_to_shape"):
                found.append(c.op.name)
            self.generic_visit_expr(c)

    Calls().visit_expr(mod["main"])
    return found


def same_leaves(got, want, where="result"):
    """The leaves of two nested tuples agree one by one (:func:`same`), and there are as many."""
    got, want = list(flat(got)), list(flat(want))
    assert len(got) == len(want), (where, len(got), len(want))
    for i, (a, b) in enumerate(zip(got, want)):
        same(a, np.asarray(b), where=f"{where} leaf {i}")


def legalized_equals_reference(mod, inputs):
    """The reference result of ``main``, after checking that the legalized module computes the same."""
    got = relax_ref.evaluate(mod, "main", *inputs)
    same_leaves(relax_ref.evaluate(LegalizeOps()(mod), "main", *inputs), got, "legalized")
    return got


def check_calls(params, exprs, inputs, expected, *, legalize=True):
    """``main(params)`` binding ``exprs`` (:func:`calls_text`) gives ``expected`` (one entry per
    expression) on ``inputs``; with ``legalize``, the legalized module calls no operator and computes
    the same. Returns the module."""
    mod = relax_ref.parse(calls_text(params, exprs), check_well_formed=False)
    got = relax_ref.evaluate(mod, "main", *inputs)
    assert len(got) == len(expected), (len(got), len(expected))
    for i, (g, w) in enumerate(zip(got, expected)):
        same_leaves(g, w, f"r{i}")
    if legalize:
        lmod = LegalizeOps()(mod)
        assert unlegalized_calls(lmod) == [], unlegalized_calls(lmod)
        same_leaves(relax_ref.evaluate(lmod, "main", *inputs), got, "legalized")
    return mod


def call_sinfo(params, expr):
    """The struct info relax-ref infers for ``r = expr`` in ``main(params)``."""
    return last_sinfo(call_text(params, expr))[0]


def run_call(params, expr, *args):
    """The reference result of ``r = expr`` in ``main(params)`` on ``args``."""
    return relax_ref.evaluate(relax_ref.parse(call_text(params, expr)), "main", *args)


def dims(s):
    """A readable form of a tensor struct info (tuples: per field): (dims as text or None, dtype, ndim)."""
    if isinstance(s, TupleStructInfo):
        return tuple(dims(f) for f in s.fields)
    vals = s.shape_values
    return (None if vals is None else tuple(P.to_str(v) for v in vals), s.dtype, s.ndim)


def check_print_roundtrip(params, exprs):
    """The module binding every call of ``exprs`` survives print -> parse in both spellings; returns
    the parsed module (well-formedness not checked)."""
    from relax_ref.analysis.structural_equal import structural_equal

    mod = relax_ref.parse(calls_text(params, exprs), check_well_formed=False)
    for dialect in ("classic", "tvm"):
        assert structural_equal(mod, relax_ref.parse(mod.script(dialect=dialect), check_well_formed=False)), dialect
    return mod


def check_table_row(funcs, name, args, want, tol=0.0, legal_tol=None):
    """Function ``name`` of the table gives ``want`` (an independent formula's value) on ``args``,
    within ``tol``; its legalized form gives the same within ``legal_tol`` (default ``tol``)."""
    b = both_of(funcs)
    ref = b.ref(name, *args)
    same(ref, as_arrays(want), tol)
    same(b.tir(name, *args), ref, tol if legal_tol is None else legal_tol)


def check_table_with_tvm(funcs, inputs_for, skip=(), tol=0.0):
    """Every function of the table but ``skip``, built once by TVM and run by its VM on
    ``inputs_for(name)``, gives the reference result (``tol``: a number, or a function of the name)."""
    pytest.importorskip("tvm")
    run = [f for f in funcs if f[0] not in skip]
    assert run
    inputs = {name: inputs_for(name) for name, _, _ in run}
    theirs = run_tvm_table(run, inputs)
    b = both_of(funcs)
    for name, args in inputs.items():
        same(b.ref(name, *args), theirs[name], tol(name) if callable(tol) else tol, name)


def sinfo_agreement_test(cases, release_differences=(), **kwargs):
    """A test, parametrized over ``(id, params, expr)`` cases, that relax-ref infers TVM's struct info
    for ``r = expr`` in ``main(params)`` and rejects what TVM rejects (``kwargs``: see
    :func:`check_sinfo_with_tvm`). ``release_differences``: ``(id, release, TVM's struct info)`` for
    the cases where a TVM release from ``release`` on infers otherwise (checked by
    :func:`check_sinfo_differs_from_tvm`). Assign it to a ``test_*`` name of the test module."""
    differs = {cid: (release, theirs) for cid, release, theirs in release_differences}

    @pytest.mark.tvm
    @pytest.mark.parametrize("case", cases, ids=[c[0] for c in cases])
    def test(case):
        cid, params, expr = case
        pytest.importorskip("tvm")
        import tvm_compat

        if cid in differs and tvm_compat.RELEASE >= differs[cid][0]:
            check_sinfo_differs_from_tvm(call_text(params, expr), differs[cid][1])
        else:
            check_sinfo_with_tvm(call_text(params, expr), **kwargs)

    return test


def check_sinfo_differs_from_tvm(text, theirs_text):
    """A known difference of the installed TVM release: TVM infers ``theirs_text`` for ``main``'s last
    binding, and relax-ref, which accepts the call, infers something else."""
    pytest.importorskip("tvm")
    ours, _ = last_sinfo(text)
    theirs = tvm_sinfo(text)
    assert str(theirs) == theirs_text
    assert str(ours) != str(theirs), (ours, theirs)


def parse_calls(params, exprs):
    """The module of :func:`calls_text`, parsed (well-formedness not checked)."""
    return relax_ref.parse(calls_text(params, exprs), check_well_formed=False)


def legalized_cases_agree(category, tag=None, skip_tag=None):
    """Every ``return`` run of the conformance cases of ``category`` (with ``tag``, when given) gives
    the case's expected value on the reference interpreter after LegalizeOps. Returns how many runs
    were checked."""
    from relax_conformance.case import discover_cases
    from relax_conformance.gen import default_cases_root

    cases, errors = discover_cases([default_cases_root() / category])
    assert not errors, errors
    checked = 0
    for case in cases:
        if tag is not None and tag not in case.tags or skip_tag is not None and skip_tag in case.tags:
            continue
        runs = [r for r in case.runs if r.expect == "return"]
        if not runs:
            continue
        lmod = LegalizeOps()(relax_ref.parse(case.text))
        for r in runs:
            inputs = [getattr(a, "value", a) for a in case.inputs(r)]       # prim values as Python scalars
            got = relax_ref.evaluate(lmod, case.entry, *inputs)
            for g, w in zip(flat(got), flat(case.expected(r))):
                g, w = getattr(g, "value", g), getattr(w, "value", w)     # prim values
                np.testing.assert_allclose(np.asarray(g, "float64"), np.asarray(w, "float64"), rtol=r.rtol,
                                           atol=r.atol, err_msg=case.id)
            checked += 1
    return checked
