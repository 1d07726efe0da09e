"""Module-level rules and recorded divergences: the argument tuple of ``call_tir`` given by a variable,
``match_cast`` without a variable, a private function as the entry, global functions with symbolic
signatures used as values, ``check_well_formed=False``, dtypes and annotations the text rejects, calls of
opaque function values, and constants read from a metadata section.

Oracles: NumPy restatements; rejections from the cited rules.
"""

import numpy as np

from relax_conformance.gen import TVM_IMPORT, Case, Fails, Invalid, Malformed, Prim, Shape, module_text
from case_helpers import SCALED_CLOSURE_MAIN

RNG = np.random.default_rng(20240731)


def f32(*shape):
    return RNG.standard_normal(shape).astype("float32")


SIZES = (0, 1, 4)

#: the metadata section TVM 0.25 prints for two constants (``show_meta=True``): a float32 (3,) tensor
#: [1.5, -2.0, 0.25] and an int32 (1, 2) tensor [[7, -8]]
METADATA = r'''metadata = tvm.ir.load_json("""{
  \"root_index\": 18,
  \"nodes\": [
    {
      \"type\": \"ffi.String\",
      \"data\": \"relax.expr.Constant\"
    },
    {
      \"type\": \"None\"
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 3
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        2
      ]
    },
    {
      \"type\": \"relax.ShapeStructInfo\",
      \"data\": {
        \"span\": 1,
        \"values\": 3,
        \"ndim\": 1
      }
    },
    {
      \"type\": \"relax.expr.ShapeExpr\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 4,
        \"values\": 3
      }
    },
    {
      \"type\": \"relax.TensorStructInfo\",
      \"data\": {
        \"span\": 1,
        \"shape\": 5,
        \"dtype\": \"float32\",
        \"vdevice\": 1,
        \"ndim\": 1
      }
    },
    {
      \"type\": \"ffi.Tensor\",
      \"data\": \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAQAAAAIgAQADAAAAAAAAAAwAAAAAAAAAAADAPwAAAMAAAIA+\"
    },
    {
      \"type\": \"relax.expr.Constant\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 6,
        \"data\": 7
      }
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 1
      }
    },
    {
      \"type\": \"ir.IntImm\",
      \"data\": {
        \"span\": 1,
        \"dtype\": \"int64\",
        \"value\": 2
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        9,
        10
      ]
    },
    {
      \"type\": \"relax.ShapeStructInfo\",
      \"data\": {
        \"span\": 1,
        \"values\": 11,
        \"ndim\": 2
      }
    },
    {
      \"type\": \"relax.expr.ShapeExpr\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 12,
        \"values\": 11
      }
    },
    {
      \"type\": \"relax.TensorStructInfo\",
      \"data\": {
        \"span\": 1,
        \"shape\": 13,
        \"dtype\": \"int32\",
        \"vdevice\": 1,
        \"ndim\": 2
      }
    },
    {
      \"type\": \"ffi.Tensor\",
      \"data\": \"P6G0lvBAXt0AAAAAAAAAAAEAAAAAAAAAAgAAAAAgAQABAAAAAAAAAAIAAAAAAAAACAAAAAAAAAAHAAAA+P\\/\\/\\/w==\"
    },
    {
      \"type\": \"relax.expr.Constant\",
      \"data\": {
        \"span\": 1,
        \"struct_info_\": 14,
        \"data\": 15
      }
    },
    {
      \"type\": \"ffi.Array\",
      \"data\": [
        8,
        16
      ]
    },
    {
      \"type\": \"ffi.Map\",
      \"data\": [
        0,
        17
      ]
    }
  ],
  \"metadata\": {
    \"tvm_version\": \"0.25.0\"
  }
}""")'''


def call_tir_cases():
    out = []
    by_var = module_text('''
        @T.prim_func
        def mul(a: T.handle, b: T.handle, c: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            C = T.match_buffer(c, (n,), "float32")
            for i in range(n):
                C[i] = A[i] * B[i]

        @R.function
        def main(x: R.Tensor(("n",), "float32"), t: R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32"))) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            args = (x, x)
            a = args
            p = R.call_tir(cls.mul, a, out_sinfo=R.Tensor((n,), "float32"))
            q = R.call_tir(cls.mul, t, out_sinfo=R.Tensor((n,), "float32"))
            r = (p, q)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, u, v = f32(n), f32(n), f32(n)
        runs.append(([x, (u, v)], (x * x, u * v)))
    out.append(Case("call_tir_arguments_given_by_a_variable", by_var, runs=runs,
                    spec=["DIV.2", "CALL.TIR.2", "NORM.ANF.2", "CALL.TIR.5"], tags=["call_tir", "tuple", "symbolic"],
                    description="a variable bound (through another) to a tuple literal is replaced by the literal; "
                                "a tuple parameter by the tuple of its fields"))
    return out


def text_cases():
    out = []
    bare = module_text('''
        @R.function
        def main(x: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            R.match_cast(x, R.Tensor((3,), "float32"))
            return x
    ''')
    out.append(Malformed("match_cast_without_a_variable", bare, spec=["DIV.12", "EXPR.MATCHCAST.1"],
                         tags=["match_cast", "text"],
                         description="a match_cast is always bound to a variable"))
    handle = module_text('''
        @R.function
        def main(x: R.Tensor((2,), "handle")) -> R.Tensor((2,), "handle"):
            return x
    ''')
    out.append(Malformed("handle_is_not_a_tensor_dtype", handle, spec=["VAL.DTYPE.4", "VAL.DTYPE.2"], tags=["text"],
                         description="no Relax value has dtype handle"))
    ndim = module_text('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32", ndim=3)) -> R.Tensor("float32", ndim=2):
            return x
    ''')
    out.append(Malformed("annotation_ndim_disagrees_with_its_shape", ndim, spec=["SI.TENSOR.2", "TEXT.SINFO.1"],
                         tags=["text"], description="ndim=3 with a shape of two dimensions"))
    no_annot = module_text('''
        @R.function
        def main(x) -> R.Tensor((2,), "float32"):
            return x
    ''')
    out.append(Malformed("parameter_without_struct_info", no_annot, spec=["NORM.FUNC.2", "TEXT.FUNC.1"],
                         tags=["text"], description="every parameter needs struct info"))
    unchecked = (TVM_IMPORT + "\n\n\n@I.ir_module(check_well_formed=False)\nclass Module:\n" + '''
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        y = R.add(x, x)
        z = R.print(y, format="{}")
        return y
''')
    out.append(Invalid("not_checked_when_parsed_still_checked_before_running", unchecked, "well_formed",
                       spec=["TEXT.MOD.3", "EVAL.PROG.2", "WF.PURITY.1"], tags=["text"],
                       description="check_well_formed=False only defers the check: a pure function with an "
                                   "impure call is still rejected before anything runs"))
    x3 = np.array([1.0, 2.0, 3.0], "float32")
    meta = TVM_IMPORT + "\n\n" + METADATA + "\n\n\n" + '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), dtype="float32")) -> R.Tuple(R.Tensor((3,), dtype="float32"), R.Tensor((1, 2), dtype="float32")):
        gv: R.Tensor((3,), dtype="float32") = R.add(x, metadata["relax.expr.Constant"][0])
        gv1: R.Tensor((1, 2), dtype="float32") = R.astype(metadata["relax.expr.Constant"][1], dtype="float32")
        return (gv, gv1)
'''
    out.append(Case("constants_from_a_metadata_section", meta,
                    runs=[([x3], (x3 + np.array([1.5, -2.0, 0.25], "float32"), np.array([[7, -8]], "float32")))],
                    spec=["TEXT.META.1", "TEXT.SAFE.2", "EVAL.CONST.1"], tags=["text", "constant"], oracle="hand",
                    description="two constants decoded from TVM's metadata JSON (data only, never executed)"))
    sugar = module_text('''
        @T.prim_func
        def k(a: T.handle, b: T.handle):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            T.assume(n >= T.int64(0))
            for i in range(n):
                B[i] = A[i] * T.FloatImm("float32", 0.5) + T.Cast("float32", T.IntImm("int32", 3))

        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor("float32", ndim=1)) -> R.Tuple(R.Tensor(("n",), "float16"), R.Shape(["n", 2]), R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
            n = T.int64()
            cls = Module
            z = R.match_cast(y, x.struct_info)
            h = x.astype("float16")
            s = R.ShapeExpr([n, 2])
            t = (z, x)
            u = R.TupleGetItem(t, 0)
            w = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((n,), "float32"))
            r = (h, s, u, w)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        runs.append(([x, y], (x.astype("float16"), Shape([n, 2]), y, x * np.float32(0.5) + np.float32(3))))
    runs.append(Fails([f32(3), f32(2)], "match_cast_failed", "x.struct_info is (n,) with n = 3"))
    out.append(Case("text_sugar_for_values_and_tensorir_builtins", sugar, runs=runs,
                    spec=["TEXT.EXPR.9", "TEXT.TIR.7", "EVAL.MATCHCAST.1"], tags=["text", "symbolic"],
                    description="x.struct_info, x.astype, R.ShapeExpr and R.TupleGetItem in Relax; T.assume and "
                                "typed literals in TensorIR"))
    return out


def function_cases():
    out = []
    private = module_text('''
        @R.function(private=True)
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.multiply(x, x)
            return y
    ''')
    runs = [([x], x * x) for x in (f32(n) for n in SIZES)]
    out.append(Case("private_function_as_the_entry", private, runs=runs,
                    spec=["DIV.14", "MOD.4", "EVAL.PROG.1"], tags=["linkage", "symbolic"],
                    description="linkage does not affect evaluation: a private function can be run by name"))
    closure = module_text('''
        @R.function
        def scaled(x: R.Tensor(("n",), "float32"), s: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            w = R.multiply(x, s)
            return w

''' + SCALED_CLOSURE_MAIN)
    runs = []
    for n in SIZES:
        x, s = f32(n), f32(n)
        runs.append(([x, s], x * s))
    runs += [Fails([f32(2), f32(3)], "shape_mismatch", "scaled's n = 2 from x, s has 3")]
    out.append(Case("make_closure_of_a_global_with_a_symbolic_signature", closure, runs=runs,
                    spec=["DIV.31", "WF.SYM.2", "CALL.CLOSURE.2", "CALL.CLOSURE.3", "CALL.FUNC.2"],
                    tags=["closure", "symbolic", "op:make_closure"],
                    description="scaled's n belongs to scaled even where its GlobalVar is a value of main"))
    value = module_text('''
        @R.function
        def neg(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            w = R.negative(v)
            return w

        @R.function
        def apply(f: R.Callable((R.Tensor(("n",), "float32"),), R.Tensor(("n",), "float32")), x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            y = f(x)
            return y

        @R.function
        def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
            cls = Module
            r = cls.apply(cls.neg, x)
            return r
    ''')
    runs = [([x], -x) for x in (f32(n) for n in SIZES)]
    out.append(Case("global_with_a_symbolic_signature_as_an_argument", value, runs=runs,
                    spec=["DIV.31", "WF.SYM.2", "SI.3", "SI.BASE.7", "EVAL.GLOBAL.1"],
                    tags=["closure", "higher-order", "symbolic"],
                    description="neg's signature equals f's up to renaming; its k stays neg's own"))
    opaque = module_text('''
        @R.function(pure=False)
        def call_it(f: R.Callable(ret=R.Tensor("float32", ndim=1)), x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tensor("float32", ndim=1):
            r = f(x, y)
            return r

        @R.function
        def add2(a: R.Tensor("float32", ndim=1), b: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            k = T.int64()
            u = R.match_cast(a, R.Tensor((k,), "float32"))
            v = R.match_cast(b, R.Tensor((k,), "float32"))
            c = R.add(u, v)
            return c

        @R.function
        def one(a: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            return a

        @R.function(pure=False)
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32"), c: R.Prim("bool")) -> R.Tensor("float32", ndim=1):
            cls = Module
            if c:
                r = cls.call_it(cls.add2, x, y)
            else:
                r = cls.call_it(cls.one, x, y)
            return r
    ''')
    runs = []
    for n in SIZES:
        x, y = f32(n), f32(n)
        runs += [([x, y, Prim(True, "bool")], x + y),
                 Fails([x, y, Prim(False, "bool")], "arity_mismatch", "one takes 1 argument, gets 2")]
    out.append(Case("opaque_callee_arguments_are_not_checked", opaque, runs=runs,
                    spec=["SI.CALL.5", "SI.FUNC.2", "SI.BASE.7", "CALL.FUNC.1", "EVAL.CALL.3"],
                    tags=["closure", "higher-order", "symbolic"],
                    description="f's struct info is opaque (only a return struct info): no argument is checked "
                                "statically and the call has struct info R.Tensor(ndim=1); the callee's own "
                                "arity check fails at run time"))
    return out


def generate():
    return {"module_rules": call_tir_cases() + text_cases() + function_cases()}
