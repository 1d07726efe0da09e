"""Normalization of TVMScript programs compared with TVM 0.25 (spec NORM.*): every binding's name
and struct info, every If's and function's struct info, and each GlobalVar's struct info must
agree with what TVM's parser/normalizer produces for the same text."""

import re

import pytest

from relax_ref.analysis.struct_info_ops import format_struct_info
from relax_ref.ir import expr as rx
from relax_ref.ir import prim_expr as P

from tvm_struct_info import FromTvm, as_tvm_states
from program_texts import ADDN, COPY

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"

PROGRAMS = {
    "anf_and_annotations": """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor(("n",), "float32")):
        n = T.int64()
        a: R.Tensor(ndim=1) = R.add(R.multiply(x, x), x)
        b: R.Tensor(ndim=1) = R.add(x, x)
        c: R.Tuple(R.Tensor(ndim=1), R.Object) = (R.add(x, x), x)
        d: R.Tuple(R.Tensor(ndim=1), R.Object) = (b, x)
        e: R.Object = x
        with R.dataflow():
            f = R.add(R.multiply(y, y), y)
            g = (f, R.shape_of(f))
            h = g[1]
            R.output(h, f)
        return (a, b, c, d, e, h, f)
""",
    "if_and_match_cast": """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32"), c: R.Tensor((), "bool")) -> R.Tensor(ndim=1):
        n = T.int64()
        k = T.int64()
        if c:
            a = R.add(x, x)
            r = R.multiply(a, a)
        else:
            m = R.match_cast(x, R.Tensor((k,), "float32"))
            r = R.add(m, m)
        s = R.match_cast(x, R.Tensor((k,), "float32"))
        t = R.add(s, s)
        return (r, t)
""",
    "global_calls": """
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("m", 4), "float32")):
        m = T.int64()
        cls = Module
        a = cls.g(x)
        b = cls.h(x)
        return (a, b)

    @R.function
    def g(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        return x

    @R.function
    def h(x: R.Tensor(("n", 4), "float32")):
        y = R.add(x, x)
        return y

    @R.function
    def late(x: R.Tensor((2, 4), "float32")):
        cls = Module
        a = cls.g(x)
        b = cls.h(x)
        return (a, b)
""",
    "return_rule": """
@I.ir_module
class Module:
    @R.function
    def loose(x: R.Tensor((3,), "float32")) -> R.Tensor(ndim=1):
        y = R.add(x, x)
        return y

    @R.function
    def wrong(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "int32"):
        return x

    @R.function
    def erased(x: R.Tensor(("n",), "float32")):
        n = T.int64()
        a = T.int64()
        y = R.match_cast(x, R.Tensor((a,), "float32"))
        z = R.add(y, y)
        return (z, R.shape_of(z), R.shape_of(x))
""",
    "core_ops": """
@I.ir_module
class Module:
""" + ADDN + """
    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32"), c: R.Tensor((), "bool")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.addn, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([n]))
        w = R.call_dps_packed("f", (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((2,), "int32")])
        p = R.call_pure_packed("g", x, R.prim_value(1), sinfo_args=R.Tensor((n,), "float32"))
        s = R.shape_of(x)
        t = R.shape_to_tensor(s)
        u = R.tensor_to_shape(t)
        nv = R.null_value()
        R.print(x, s, format="x={} s={}")
        R.assert_op(c, x, format="bad {}")
        k = R.call_packed("ext", x, sinfo_args=R.Tensor((n,), "float32"))
        return (y, w, p, s, t, u, nv, k)
""",
    "void_quirk": """
@I.ir_module
class Module:
    @R.function(pure=False)
    def main(x: R.Tensor((3,), "float32")):
        u = R.print(x, format="{}")
        v = u
        return (u, v)
""",
}


class _Names:
    """Renders TVM struct info with relax-ref's formatter (variables matched by name)."""

    def __init__(self, tvm):
        import tvm_compat as tc

        self.vars = {}
        self.convert = FromTvm(tvm, lambda v: self.vars.setdefault(v.name, P.PrimVar(v.name, tc.dtype(v))),
                               lambda v: rx.Var(tc.name(v), struct_info=self.convert.sinfo(tc.sinfo(v))))

    def text(self, s):
        return format_struct_info(self.convert.sinfo(s))


def _statement_name(name):
    """TVM 0.27 names the binding of an expression statement ``__1``, ``__2``, ... where TVM 0.25 and
    relax-ref name it ``_`` (a name nothing can refer to)."""
    return "_" if re.fullmatch(r"__\d+", name) else name


def _summary_tvm(tvm, mod):
    import tvm_compat as tc

    out = {}
    for gv, f in mod.functions_items():
        nm = _Names(tvm)
        rows = [("gvar", nm.text(tc.sinfo(gv)))]
        if isinstance(f, tvm.relax.Function):
            for blk in f.body.blocks:
                for b in blk.bindings:
                    rows.append((type(b.var).__name__, _statement_name(tc.name(b.var)), nm.text(tc.sinfo(b.var))))
                    if isinstance(b.value, tvm.relax.If):
                        rows.append(("if", nm.text(tc.sinfo(b.value)),
                                     nm.text(tc.sinfo(b.value.true_branch)), nm.text(tc.sinfo(b.value.false_branch))))
            rows.append(("ret", nm.text(tc.ret_sinfo(f))))
        out[gv.name_hint] = rows
    return out


def _summary_ours(mod, states=lambda si: si):
    """Each function's rows; ``states``: the struct info as the compared TVM release can state it."""
    out = {}

    def fmt(si):
        return format_struct_info(states(si))

    for gv, f in mod.functions_items():
        rows = [("gvar", fmt(gv.struct_info))]
        if isinstance(f, rx.Function):
            for blk in f.body.blocks:
                for b in blk.bindings:
                    rows.append((type(b.var).__name__, _statement_name(b.var.name_hint), fmt(b.var.struct_info)))
                    if isinstance(b.value, rx.If):
                        rows.append(("if", fmt(b.value.struct_info), fmt(b.value.true_branch.struct_info),
                                     fmt(b.value.false_branch.struct_info)))
            rows.append(("ret", fmt(f.ret_struct_info)))
        out[gv.name_hint] = rows
    return out


def _tvm_module(source):
    """TVM's module of a program (written in TVM 0.25's spelling) in the installed release's dialect."""
    from typing import TypeVar

    import tvm
    from tvm.script import ir as I, relax as R, tirx as T
    from tvm_compat import tvm_text

    text = tvm_text(HEADER + source)
    text = text[len(HEADER):] if text.startswith(HEADER) else text
    return tvm.script.from_source(text, extra_vars={"I": I, "R": R, "T": T, "TypeVar": TypeVar})


@pytest.mark.tvm
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_normalization_matches_tvm(name):
    tvm = pytest.importorskip("tvm")
    from relax_ref.script.parser import parse

    import tvm_compat

    # both read the same text: translated into the installed release's dialect, the module may differ
    # from the source (TVM 0.27's call_tir takes its scalars before the outputs, TEXT.DIALECT.5)
    text = tvm_compat.tvm_text(HEADER + PROGRAMS[name])
    theirs = _summary_tvm(tvm, _tvm_module(PROGRAMS[name]))
    ours = _summary_ours(parse(text), lambda si: as_tvm_states(si, tvm_compat))
    assert ours.keys() == theirs.keys()
    for fn in ours:
        assert ours[fn] == theirs[fn], fn


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_are_well_formed_and_normalization_is_idempotent(name):
    from relax_ref.static.normalize import normalize_module
    from relax_ref.analysis.structural_equal import structural_equal
    from relax_ref.static.well_formed import check_well_formed
    from relax_ref.script.parser import parse

    mod = parse(HEADER + PROGRAMS[name])
    check_well_formed(mod)
    again = normalize_module(mod)
    assert structural_equal(mod, again)


CORE_OPS_SOURCE = """
@I.ir_module
class Module:
""" + ADDN + """
""" + COPY + """
    @T.prim_func(private=True)
    def inc(a: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        for i in range(n):
            A[i] = A[i] + T.float32(1)

    @R.function
    def lifted(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        return x

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32"), c: R.Tensor((), "bool"), x3: R.Tensor((3,), "float32")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.addn, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([n]))
        y2 = R.call_tir(cls.addn, (x,), out_sinfo=[R.Tensor((n,), "float32")], tir_vars=R.shape([n]))
        z = R.call_tir_inplace(cls.inc, (y,), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
        g = R.call_tir_with_grad(cls.copy, (x,), out_sinfo=R.Tensor((n,), "float32"), te_grad_name="gr",
                                 te_grad_kwargs={"a": 1})
        w = R.call_dps_packed("f", (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((2,), "int32")])
        p = R.call_pure_packed("g", x, R.prim_value(1), sinfo_args=R.Tensor((n,), "float32"))
        q = R.call_inplace_packed("h", x, y, inplace_indices=[0], sinfo_args=R.Tensor((n,), "float32"))
        s = R.shape_of(x)
        nv = R.null_value()
        R.print(x, s, format="x={} s={}")
        R.assert_op(c, x, format="bad {}")
        R.assert_op(c)
        t = R.shape_to_tensor(s)
        s2 = R.tensor_to_shape(t)
        cc = R.call_builtin_with_ctx("vm.builtin.x", (x,), sinfo_args=R.Tensor((n,), "float32"))
        at = R.builtin.alloc_tensor(R.shape([n]), "float32", 0)
        st = R.memory.alloc_storage(R.shape([16]), 0, "global", "float32")
        mt = R.memory.alloc_tensor(st, 0, R.shape([4]), "float32")
        R.memory.kill_tensor(mt)
        R.memory.kill_storage(st)
        vst = R.vm.alloc_storage(R.shape([16]), 0, "float32")
        vt = R.vm.alloc_tensor(vst, 0, R.shape([4]), "float32")
        R.vm.kill_object(vt)
        clo = R.make_closure(cls.lifted, (x3,))
        r1 = R.invoke_closure(clo, (x3,), sinfo_args=[R.Tensor((3,), "float32")])
        r2 = R.invoke_pure_closure(clo, (x3,), sinfo_args=R.Tensor((3,), "float32"))
        r3 = R.invoke_closure(clo, (x3,), sinfo_args=[R.Tensor((3,), "float32"), R.Object])
        R.vm.call_tir_dyn(cls.addn, (x, y, R.shape([n])))
        return (y, y2, z, g, w, p, q, s, nv, t, s2, cc, at, mt, vt, clo, r1, r2, r3)
"""


@pytest.mark.tvm
def test_core_op_texts_printed_by_tvm_parse_identically():
    tvm = pytest.importorskip("tvm")
    import tvm_compat

    from relax_ref.script.parser import parse

    def states(si):
        return as_tvm_states(si, tvm_compat)

    theirs_mod = _tvm_module(CORE_OPS_SOURCE)
    printed = theirs_mod.script()
    ours_mod = parse(printed)
    theirs, ours = _summary_tvm(tvm, theirs_mod), _summary_ours(ours_mod, states)
    for fn in ("main", "lifted"):
        assert ours[fn] == theirs[fn], fn
    ours_src = _summary_ours(parse(HEADER + CORE_OPS_SOURCE), states)
    assert ours_src["main"] == theirs["main"]
