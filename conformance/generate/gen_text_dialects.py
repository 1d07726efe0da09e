"""The text dialects: texts in TVM 0.27's spelling, TVM's other ways of writing a module, a module that
mixes releases, and the meanings that differ between releases (TEXT.DIALECT.1-4).

Cases written in a spelling only TVM 0.27 reads require the feature ``tvm-0.27-spelling`` (an
implementation that reads only TVM 0.25's declares it unsupported); a case whose meaning is TVM 0.25's
where TVM 0.27 reads the same text differently requires ``tvm-0.25-spelling``; a module mixing the
spellings of two releases (which no TVM release reads) requires ``mixed-releases``. Return values are worked out by
hand or with NumPy formulas; rejections are justified by the cited rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Malformed, Prim, Shape

#: the header of a text in TVM 0.27's spelling (TypeVar declares the signatures' symbols)
TVM027 = "from typing import TypeVar\nfrom tvm.script import ir as I, relax as R, tirx as T\n\n"
TVM025 = "from tvm.script import ir as I, relax as R, tirx as T\n\n"
NEEDS_027 = ["tvm-0.27-spelling"]


def f32(*v):
    return np.array(v, dtype="float32")


def tvm027_signatures():
    out = []
    x3 = f32(1.0, -2.0, 3.5)
    x32 = np.arange(6, dtype="float32").reshape(3, 2) - 2.5
    x12 = f32(0.25, 4.0).reshape(1, 2)

    out.append(Case("typevar_symbols", TVM027 + '''n = TypeVar("n")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), "float32")) -> R.Tensor((n, 2), "float32"):
        y = R.add(x, x)
        return y
''', runs=[([x32], x32 + x32), ([x12], x12 + x12)], oracle="numpy-formula", requires=NEEDS_027,
        spec=["TEXT.DIALECT.1", "TEXT.DIALECT.3"], tags=["text", "dialect:tvm-0.27"],
        description="a top-level TypeVar declares the symbol n; the signature names it bare"))

    out.append(Case("scalar_parameter_is_its_symbol", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(k: T.int64, x: R.Tensor((k,), "float32")) -> R.Shape(ndim=1):
        s = R.shape([k + 1])
        return s
''', runs=[([Prim(3, "int64"), x3], Shape([4])), ([Prim(1, "int64"), f32(7.0)], Shape([2])),
           Fails([Prim(2, "int64"), x3], "shape_mismatch")], oracle="hand", requires=NEEDS_027,
        spec=["TEXT.DIALECT.3", "EVAL.CHECK.1"], tags=["text", "dialect:tvm-0.27"],
        description="k: T.int64 is a scalar parameter that is also the symbol k of x's shape and of R.shape([k + 1]); "
                    "an x whose length is not k is a shape mismatch"))

    out.append(Case("scalar_bindings", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(n: T.int64) -> R.Shape(ndim=2):
        y: T.int64 = n * 2 + 1
        z = y - n
        s = R.shape([z, y])
        return s
''', runs=[([Prim(3, "int64")], Shape([4, 7])), ([Prim(0, "int64")], Shape([1, 1]))], oracle="hand",
        requires=NEEDS_027, spec=["TEXT.DIALECT.2", "TEXT.DIALECT.3"], tags=["text", "dialect:tvm-0.27"],
        description="in TVM 0.27 text y = n * 2 + 1 binds a scalar value and z = y - n computes with it: "
                    "z is n + 1"))

    out.append(Case("out_ty_and_ty_args", TVM027 + '''@I.ir_module
class Module:
    @T.prim_func(private=True)
    def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            B[i] = A[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_ty=R.Tensor((3,), "float32"))
        z = R.call_pure_packed("conformance.identity", y, ty_args=R.Tensor((3,), "float32"))
        return z
''', runs=[([x3], x3 * 2)], oracle="hand", requires=NEEDS_027,
        spec=["TEXT.DIALECT.1", "CALL.TIR.1"], tags=["text", "dialect:tvm-0.27", "call_tir", "packed"],
        description="out_ty= and ty_args= are TVM 0.27's names of out_sinfo= and sinfo_args="))
    return out


def tvm027_values():
    out = []
    x3 = f32(1.0, -2.0, 3.5)

    out.append(Case("any_and_dtype_annotations", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(o: R.Any, p: T.float32) -> T.float32:
        q: T.float32 = p
        return q
''', runs=[([x3, Prim(1.5, "float32")], Prim(1.5, "float32"))], oracle="hand", requires=NEEDS_027,
        spec=["TEXT.DIALECT.1", "TEXT.SINFO.1"], tags=["text", "dialect:tvm-0.27"],
        description="R.Any is R.Object, T.float32 as an annotation is R.Prim(\"float32\")"))

    out.append(Case("prim_value_float_is_float64", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> T.float64:
        v = R.prim_value(0.5)
        return v
''', runs=[([x3], Prim(0.5, "float64"))], oracle="spec-rule", requires=NEEDS_027,
        spec=["TEXT.DIALECT.2", "TEXT.EXPR.6"], tags=["text", "dialect:tvm-0.27"],
        description="in TVM 0.27 text R.prim_value of a Python float is a float64 value"))

    out.append(Case("number_operands_and_returns", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((), "float32"), R.Prim("int64")):
        y = R.take(x, 1, axis=0)
        return (y, 2)
''', runs=[([x3], (np.array(x3[1], "float32"), Prim(2, "int64")))], oracle="hand", requires=NEEDS_027,
        spec=["TEXT.DIALECT.3", "TEXT.EXPR.4"], tags=["text", "dialect:tvm-0.27"],
        description="a Python number passed to a Relax operand or returned is an int64 scalar value"))

    out.append(Case("local_function_typevar", TVM027 + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        m = TypeVar("m")

        @R.function
        def inner(a: R.Tensor((m,), "float32")) -> R.Tensor((m,), "float32"):
            b = R.add(a, a)
            return b

        y = inner(x)
        return y
''', runs=[([x3], x3 + x3)], oracle="hand", requires=NEEDS_027,
        spec=["TEXT.DIALECT.3", "TEXT.FUNC.3"], tags=["text", "dialect:tvm-0.27", "closure"],
        description="a TypeVar in a body declares the symbol of a local function's signature"))
    return out


def release_meanings():
    """Texts whose meaning depends on the release they are read as (TEXT.DIALECT.2)."""
    x2 = f32(1.0, 2.0)
    return [
        Case("prim_value_float_is_float32_in_tvm025", TVM025 + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Prim("float32"):
        v = R.prim_value(0.5)
        return v
''', runs=[([x2], Prim(0.5, "float32"))], oracle="spec-rule", requires=["tvm-0.25-spelling"],
             spec=["TEXT.DIALECT.2", "TEXT.EXPR.6"], tags=["text", "dialect:tvm-0.25"],
             description="without any TVM 0.27 spelling the text reads as TVM 0.25: R.prim_value(0.5) is float32"),
        Case("scalar_name_is_not_a_binding_in_tvm025", TVM025 + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Shape(ndim=1):
        n = T.int64()
        m = n * 2
        s = R.shape([m])
        return s
''', runs=[([x2], Shape([4])), ([f32(5.0)], Shape([2]))], oracle="hand",
             spec=["TEXT.DIALECT.2", "TEXT.FUNC.2"], tags=["text", "dialect:tvm-0.25"],
             description="in TVM 0.25 text m = n * 2 only names the expression (no binding)"),
    ]


def tvm_spellings():
    """Ways of writing a module that TVM's own tests use and both releases read."""
    x3 = f32(1.0, -2.0, 3.5)
    return [
        Case("tvm_script_decorator", '''import tvm
from tvm.script import relax as R


@tvm.script.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.multiply(x, x)
        return y
''', runs=[([x3], x3 * x3)], oracle="numpy-formula", spec=["TEXT.MOD.1", "TEXT.MOD.2"],
             tags=["text", "decorator"], description="@tvm.script.ir_module is @I.ir_module"),
        Case("parser_namespace_imports", '''from tvm.script.parser import ir as I
from tvm.script.parser import relax as R


@I.ir_module(s_tir=True)
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.subtract(x, x)
        return y
''', runs=[([x3], x3 - x3)], oracle="numpy-formula", spec=["TEXT.MOD.1", "TEXT.MOD.2", "TEXT.DIALECT.2"],
             tags=["text", "decorator"],
             description="the namespaces imported from tvm.script.parser; s_tir=True on the module changes nothing"),
        Case("python_api_names", '''from tvm import relax
from tvm.script import ir as I, relax as R


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = relax.op.add(x, relax.const(1.0, "float32"))
        return y
''', runs=[([x3], x3 + np.float32(1.0))], oracle="numpy-formula", spec=["TEXT.MOD.1", "TEXT.EXPR.4"],
             tags=["text"], description="relax.op.add and relax.const are R.add and R.const"),
        Case("mixed_releases", TVM027 + '''@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            with T.sblock("d"):
                vi = T.axis.spatial(T.int64(3), i)
                B[vi] = A[vi] * T.float32(2)

    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        y = R.call_tir(cls.double, (x,), out_sinfo=R.Tensor((3,), "float32"))
        z = R.call_tir(cls.double, (y,), out_ty=R.Tensor((3,), "float32"))
        return z
''', runs=[([x3], x3 * 4)], oracle="hand", requires=NEEDS_027 + ["mixed-releases"],
             spec=["TEXT.DIALECT.1", "TEXT.DIALECT.2"],
             tags=["text", "dialect:tvm-0.27"],
             description="one module writes out_sinfo= (TVM 0.25) and out_ty= (TVM 0.27)"),
    ]


def rejected():
    return [
        Malformed("typevar_name_mismatch", TVM027 + '''n = TypeVar("m")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        return x
''', spec=["TEXT.DIALECT.3"], tags=["text", "dialect:tvm-0.27"], requires=NEEDS_027,
                  description="a TypeVar must be bound to its own name"),
        Malformed("typevar_with_bound", TVM027 + '''n = TypeVar("n", bound=int)


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        return x
''', spec=["TEXT.DIALECT.3"], tags=["text", "dialect:tvm-0.27"], requires=NEEDS_027,
                  description="a symbolic TypeVar has no bound or constraints"),
    ]


def generate():
    return {"text_dialects": tvm027_signatures() + tvm027_values() + release_meanings() + tvm_spellings()
            + rejected()}
