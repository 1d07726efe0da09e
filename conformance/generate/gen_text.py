"""The text format: texts it accepts (decorator options, preamble statements, string dimensions,
constants, literals, TensorIR forms), texts it rejects, and the spec's side of divergences that
show in the text (DIV.*).

Return values are worked out by hand or with NumPy formulas; rejections are justified by the cited
rules.
"""

import numpy as np

from relax_conformance.gen import Case, Fails, Invalid, Prim, Shape, module_text

from case_helpers import rejection_collector

M = module_text


def f32(*v):
    return np.array(v, dtype="float32")


def script_structure_cases(x3, x4):
    """Decorator options, missing import lines, preamble statements and shadowing."""
    out = []
    out.append(Case("decorator_options", M('''
        @T.prim_func(private=True)
        def double(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            T.func_attr({"tirx.noalias": True})
            for i in range(T.int64(3)):
                B[i] = A[i] * T.float32(2)

        @R.function(private=True, pure=True)
        def helper(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = R.call_tir(cls.double, x, out_sinfo=[R.Tensor((3,), "float32")])
            return y

        @R.function(pure=True, private=False)
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = Module.helper(x)
            return y
    '''), runs=[([x3], x3 * 2)], oracle="hand",
        spec=["TEXT.MOD.2", "TEXT.FUNC.1", "TEXT.FUNC.3", "TEXT.TIR.1", "TEXT.EXPR.7", "MOD.4"],
        tags=["text", "decorator"],
        description="decorator options, a private helper called as Module.helper, call_tir with a bare input and an out_sinfo list"))

    out.append(Case("no_import_lines", '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.add(x, x)
        return y
''', runs=[([x3], x3 + x3)], oracle="hand", spec=["TEXT.MOD.1"], tags=["text"],
        description="without imports I, R and T denote the three vocabularies"))

    out.append(Case("preamble_statements", M('''
        @R.function
        def twice(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            y = R.add(x, x)
            return y

        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32")):
            R.func_attr({"a_bool": True, "an_int": 3, "a_float": 1.5, "a_str": "s", "a_none": None, "a_list": [1, 2], "a_dict": {"k": "v"}})
            cls = Module
            n = T.int64()
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            z = cls.twice(y)
            s = R.shape([n + 1, n * 2])
            return (z, s)
    '''), runs=[([x3], (x3 + x3, Shape([4, 6]))), ([x4], (x4 + x4, Shape([5, 8])))], oracle="hand",
        spec=["TEXT.STMT.8", "TEXT.ATTR.1", "TEXT.EXPR.8", "TEXT.FUNC.3"], tags=["text", "symbolic"],
        description="R.func_attr, cls = Module and n = T.int64() create no binding; n + 1 and n * 2 are scalar expressions"))

    out.append(Case("shadowing", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.add(x, x)
            y = R.multiply(y, y)
            x = R.subtract(y, x)
            return x
    '''), runs=[([x3], (x3 + x3) * (x3 + x3) - x3)], oracle="numpy-formula",
        spec=["TEXT.SCOPE.1"], tags=["text"], description="a later binding of a name shadows the earlier one"))
    return out


def literal_cases(x3):
    """String dimensions, prim-value literals and constants."""
    out = []
    def sdim(n):
        return f32(*range(n))

    out.append(Case("string_dimension_expressions", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n * 2 + 1",), "float32"), z: R.Tensor(("T.max(n, 4) // 2",), "float32")) -> R.Tensor(("n * 2 + 1",), "float32"):
            return y
    '''), runs=[([sdim(3), sdim(7), sdim(2)], sdim(7)), ([sdim(5), sdim(11), sdim(2)], sdim(11)),
                Fails([sdim(3), sdim(6), sdim(2)], "shape_mismatch", note="y must have 2*3+1 elements"),
                Fails([sdim(5), sdim(11), sdim(3)], "shape_mismatch", note="z must have max(5,4)//2 = 2 elements")],
        oracle="hand", spec=["TEXT.SINFO.3", "TEXT.SIG.2"], tags=["text", "symbolic"],
        description="string dimensions are scalar expressions over the signature's variables"))

    out.append(Case("prim_value_literals", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            a = R.prim_value(5)
            b = R.prim_value(1.5)
            c = R.shape([2, 3])
            d = R.str("hello")
            return (a, b, c, d)
    '''), runs=[([x3], (Prim(5, "int64"), Prim(1.5, "float32"), Shape([2, 3]), "hello"))], oracle="hand",
        spec=["TEXT.EXPR.6", "TEXT.PRIM.1"], tags=["text", "prim"],
        description="an int literal is an int64 prim value, a float literal float32"))

    out.append(Case("prim_value_annotation_dtype", M('''
        @R.function
        def main(p: R.Prim(value=3)):
            return p
    '''), runs=[([Prim(3, "int64")], Prim(3, "int64")),
                Fails([Prim(3, "int32")], "dtype_mismatch", note="R.Prim(value=3) is int64"),
                Fails([Prim(4, "int64")], "value_mismatch")],
        oracle="hand", spec=["TEXT.SINFO.1", "TEXT.PRIM.1"], tags=["text", "prim"],
        description="an integer literal in struct info is int64"))

    out.append(Case("number_binding_is_constant", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            c = 2.0
            t = (x, (c, x))
            y = R.multiply(t[1][1], t[1][0])
            return y
    '''), runs=[([x3], x3 * 2)], oracle="hand", spec=["TEXT.RELAX.1", "TEXT.STMT.1", "TEXT.EXPR.2"],
        tags=["text", "constant"], description="a Python number becomes R.const, a Python tuple a Tuple"))

    out.append(Case("constants_inline", M('''
        @R.function
        def main(x: R.Tensor((2, 2), "int32")):
            c = R.const([[1, 2], [3, 4]], "int32")
            y = R.add(x, c)
            m = R.const(float("-inf"), "float32")
            b = R.const(True, "bool")
            return (y, m, b)
    '''), runs=[([np.array([[10, 20], [30, 40]], "int32")],
                 (np.array([[11, 22], [33, 44]], "int32"), np.array(-np.inf, "float32"), np.array(True)))],
        oracle="hand", spec=["TEXT.CONST.1", "TEXT.CONST.2", "TEXT.EXPR.5"], tags=["text", "constant"],
        description="non-scalar, non-finite and boolean constants written inline"))

    out.append(Case("nonfinite_constant_as_string", M('''
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            c = R.const("-inf", "float32")
            y = R.maximum(x, c)
            return (y, c)
    '''), runs=[([f32(1.0, -3.0)], (f32(1.0, -3.0), np.array(-np.inf, "float32")))], oracle="hand",
        spec=["DIV.24", "TEXT.EXPR.5", "TEXT.RT.2"], tags=["text", "constant"],
        description="the string spelling TVM prints for a non-finite constant is accepted"))
    return out


def annotation_and_evaluation_cases(x3, x4):
    """Annotations that are dropped or checked, and what evaluation does not reach."""
    out = []
    out.append(Case("annotation_on_variable_dropped", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y: R.Object = x
            z = R.add(y, y)
            return z
    '''), runs=[([x3], x3 + x3)], oracle="hand", spec=["DIV.7", "TEXT.STMT.3", "NORM.ANNOT.2"],
        tags=["text", "binding"], description="an annotation on a non-call value is checked and dropped, so y keeps tensor struct info"))

    out.append(Case("return_annotation_checked", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((3,), "float32"):
            return x
    '''), runs=[([x3], x3), Fails([x4], "shape_mismatch", note="the annotation (3,) is kept and checked")],
        oracle="hand", spec=["DIV.6", "NORM.FUNC.1"], tags=["text", "return"],
        description="a return annotation compatible with the body is kept and checked at run time"))

    out.append(Case("weights_checked", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32")):
            R.func_attr({"num_input": 1})
            y = R.add(x, w)
            return y
    '''), runs=[([x3, x3], x3 + x3), Fails([x3, x4], "shape_mismatch", note="w has 4 elements")],
        oracle="hand", spec=["DIV.16"], tags=["text", "check"],
        description="parameters at index >= num_input are checked too"))

    out.append(Case("unregistered_packed_not_reached", M('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
            if c:
                y = R.call_packed("conformance.not_registered", x, sinfo_args=R.Tensor((3,), "float32"))
            else:
                y = x
            return y
    '''), runs=[([x3, Prim(False, "bool")], x3), Fails([x3, Prim(True, "bool")], "packed_func")],
        oracle="hand", spec=["DIV.30", "ERR.PHASE.2"], tags=["text", "packed"],
        description="a missing packed function is an error only when its call is reached"))

    out.append(Case("constant_is_fresh", M('''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            c = R.const([1.0, 2.0, 3.0], "float32")
            y = R.call_packed("conformance.add_inplace", c, x, sinfo_args=R.Tensor((3,), "float32"))
            z = R.call_packed("conformance.add", y, R.const([0.0, 0.0, 0.0], "float32"), sinfo_args=R.Tensor((3,), "float32"))
            return z
    '''), runs=[([x3], f32(1, 2, 3) + x3), ([x3], f32(1, 2, 3) + x3)], oracle="hand",
        spec=["DIV.18"], tags=["text", "constant", "packed"],
        description="a constant mutated in place by one call is fresh in the next"))

    out.append(Case("take_fast_out_of_range", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), i: R.Tensor((2,), "int64")):
            y = R.take(x, i, axis=0, mode="fast")
            return y
    '''), runs=[([x3, np.array([2, 0], "int64")], x3[[2, 0]]),
                Fails([x3, np.array([0, 3], "int64")], "op_runtime"),
                Fails([x3, np.array([-1, 0], "int64")], "op_runtime", note="negative indices are not wrapped")],
        oracle="numpy-formula", spec=["DIV.25"], tags=["text", "op:take"],
        description="an index outside the axis is an op_runtime error in fast mode"))

    out.append(Case("expected_kind_ancestor", M('''
        @R.function
        def main(x: R.Tensor(dtype="float32")):
            n = T.int64()
            y = R.match_cast(x, R.Tensor((n,), "float32"))
            return y
    '''), runs=[([x3], x3), Fails([x3.reshape(3, 1)], "shape_mismatch", note="an ndim_mismatch meets shape_mismatch"),
                Fails([x3.reshape(1, 3)], "match_cast_failed")],
        oracle="spec-rule", spec=["ERR.KIND.2", "ERR.KIND.3"], tags=["text", "match_cast"],
        description="an expected kind is met by a descendant; match_cast_failed is a condition on the site"))
    return out


def attribute_and_tir_cases(x3, x4):
    """Virtual devices, index maps and TensorIR parameter and block forms."""
    out = []
    out.append(Case("virtual_devices", '''from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    I.module_global_infos({"vdevice": [I.vdevice("llvm")]})

    @R.function
    def main(x: R.Tensor((3,), "float32", vdevice="llvm:0")) -> R.Tensor((3,), "float32", vdevice="llvm:0"):
        y = R.add(x, x)
        return y
''', runs=[([x3], x3 + x3)], oracle="hand", spec=["MOD.5", "TEXT.MOD.4", "DIV.13"], tags=["text", "vdevice"],
        description="a declared virtual device is static information only"))

    out.append(Case("layout_transform_index_map", M('''
        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i), index_dtype="int64"))
            return y
    '''), runs=[([np.arange(6, dtype="float32").reshape(2, 3)], np.arange(6, dtype="float32").reshape(2, 3).T.copy())],
        oracle="numpy-formula", spec=["TEXT.INDEXMAP.1"], tags=["text", "op:layout_transform"],
        description="the lambda of T.index_map is read as data"))

    out.append(Case("tir_handle_and_scalar_params", M('''
        @T.prim_func
        def shift(a: T.handle, b: T.handle, k: T.int64):
            n = T.int64()
            A = T.match_buffer(a, (n,), "float32")
            B = T.match_buffer(b, (n,), "float32")
            for i in range(n):
                t = A[i] + T.Cast("float32", k)
                if t > T.float32(0):
                    B[i] = t
                else:
                    B[i] = T.float32(0)

        @R.function
        def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
            n = T.int64()
            cls = Module
            y = R.call_tir(cls.shift, (x,), out_sinfo=R.Tensor((n,), "float32"), tir_vars=R.shape([2]))
            return y
    '''), runs=[([x3], np.maximum(x3 + 2, 0).astype("float32")), ([x4], np.maximum(x4 + 2, 0).astype("float32"))],
        oracle="numpy-formula", spec=["TEXT.TIR.2", "TEXT.TIR.6"], tags=["text", "call_tir", "symbolic"],
        description="T.handle parameters with T.match_buffer, a scalar parameter, a scalar assignment and if/else"))

    out.append(Case("tir_block_reduction", M('''
        @T.prim_func(s_tir=True)
        def rowsum(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2),), "float32")):
            for i, k in T.grid(T.int64(2), T.int64(3)):
                with T.sblock("sum"):
                    vi, vk = T.axis.remap("SR", [i, k])
                    T.reads(A[vi, vk])
                    T.writes(B[vi])
                    with T.init():
                        B[vi] = T.float32(0)
                    B[vi] = B[vi] + A[vi, vk]

        @R.function
        def main(x: R.Tensor((2, 3), "float32")):
            cls = Module
            y = R.call_tir(cls.rowsum, (x,), out_sinfo=R.Tensor((2,), "float32"))
            return y
    '''), runs=[([np.array([[1, 2, 3], [4, 5, 6.5]], "float32")], f32(6, 15.5))], oracle="hand",
        spec=["TEXT.TIR.5"], tags=["text", "call_tir", "block"],
        description="a block with remapped axes, reads/writes and an init"))
    return out


def function_cases(x3):
    """Recursion, shapes from variables, closures, opaque callables, the first error."""
    out = []
    out.append(Case("recursion_in_dataflow", M('''
        @R.function
        def f(x: R.Tensor((3,), "float32"), n: R.Tensor((), "int64")) -> R.Tensor((3,), "float32"):
            cls = Module
            c = R.greater(n, R.const(0, "int64"))
            if c:
                with R.dataflow():
                    m = R.subtract(n, R.const(1, "int64"))
                    y0 = cls.f(x, m)
                    y1 = R.add(y0, x)
                    R.output(y1)
                r = y1
            else:
                r = x
            return r

        @R.function
        def main(x: R.Tensor((3,), "float32"), n: R.Tensor((), "int64")) -> R.Tensor((3,), "float32"):
            cls = Module
            y = cls.f(x, n)
            return y
    '''), runs=[([x3, np.array(0, "int64")], x3), ([x3, np.array(3, "int64")], x3 * 4)], oracle="hand",
        spec=["DIV.9"], tags=["text", "recursion", "dataflow"],
        description="a recursive call inside a dataflow block is allowed"))

    out.append(Case("tensor_shape_from_variable", M('''
        @R.function
        def main(x: R.Tensor(dtype="float32", ndim=1), s: R.Shape(ndim=1)):
            y = R.match_cast(x, R.Tensor(s, "float32"))
            return y
    '''), runs=[([x3, Shape([3])], x3), Fails([x3, Shape([4])], "match_cast_failed")], oracle="hand",
        spec=["DIV.21", "TEXT.SINFO.1"], tags=["text", "match_cast"],
        description="a tensor annotation whose shape is a Relax shape variable is checked at run time"))

    out.append(Case("local_function_closure", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            @R.function
            def scale(z: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
                w = R.multiply(z, y)
                return w

            a = scale(x)
            b = scale(a)
            return b
    '''), runs=[([x3, f32(2, 3, -1)], x3 * f32(2, 3, -1) * f32(2, 3, -1))], oracle="numpy-formula",
        spec=["DIV.21", "TEXT.FUNC.3"], tags=["text", "closure"],
        description="a nested @R.function capturing y is evaluated directly"))
    out.append(Case("opaque_callable_with_ret", M('''
        @R.function
        def twice(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.add(x, x)
            return y

        @R.function(pure=False)
        def apply(f: R.Callable(ret=R.Tensor((3,), "float32"), purity=False), x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = f(x)
            return y

        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            cls = Module
            y = cls.apply(cls.twice, x)
            return y
    '''), runs=[([x3], x3 + x3)], oracle="hand", spec=["DIV.11", "SI.FUNC.2"], tags=["text", "callable"],
        description="an opaque R.Callable carrying only a ret accepts any function; its calls have that ret"))
    out.append(Case("first_error_stops", M('''
        @R.function
        def main(x: R.Tensor):
            a = R.match_cast(x, R.Tensor(dtype="float32", ndim=2))
            b = R.match_cast(x, R.Tensor(dtype="int32", ndim=1))
            return x
    '''), runs=[Fails([x3], "ndim_mismatch", note="the first match_cast fails; the second, a dtype_mismatch, is never reached")],
        oracle="spec-rule", spec=["ERR.PHASE.3"], tags=["text", "match_cast"],
        description="the first failing check ends the run"))
    return out


def accepted():
    x3 = f32(1.0, -2.0, 3.5)
    x4 = f32(0.5, 1.5, -1.0, 2.0)
    return (script_structure_cases(x3, x4)
            + literal_cases(x3)
            + annotation_and_evaluation_cases(x3, x4)
            + attribute_and_tir_cases(x3, x4)
            + function_cases(x3))


def unsafe_text_cases():
    """Imports, code in strings and attributes, and nesting beyond the limit."""
    out, bad = rejection_collector()
    bad("import_of_other_module", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            return x
    ''').replace("\n\n\n@I.ir_module", "\nimport os\n\n\n@I.ir_module"), ["TEXT.MOD.1", "TEXT.SAFE.1"],
        "imports other than the TVMScript vocabularies are rejected, never executed")
    bad("code_in_string_dimension", M('''
        @R.function
        def main(x: R.Tensor(("__import__('os').getpid()",), "float32")):
            return x
    '''), ["TEXT.SAFE.1", "TEXT.SAFE.2", "TEXT.SINFO.3"], "a string dimension is data: a call of a host function in it is rejected")
    bad("call_in_attribute", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            R.func_attr({"a": len("abc")})
            return x
    '''), ["TEXT.SAFE.2", "TEXT.ATTR.1"], "attribute values are data; a host call is not one of them")
    deep = "(" * 400 + "n" + ")" * 400
    bad("nesting_limit", M(f'''
        @R.function
        def main(x: R.Tensor(("{deep}",), "float32")):
            return x
    '''), ["TEXT.SAFE.4", "ERR.1"], "a nesting beyond the parser's limit is a parse error, not a crash")
    return out


def form_cases():
    """Decorator options, names, returns, metadata and operators the format does not have."""
    out, bad = rejection_collector()
    bad("unknown_decorator_option", M('''
        @R.function(inline=True)
        def main(x: R.Tensor((3,), "float32")):
            return x
    '''), ["TEXT.MOD.2"], "@R.function takes only pure, private and check_well_formed")
    bad("private_with_global_symbol", M('''
        @R.function(private=True)
        def main(x: R.Tensor((3,), "float32")):
            R.func_attr({"global_symbol": "main"})
            return x
    '''), ["TEXT.FUNC.1"], "a private function may not set global_symbol")
    bad("parameter_named_like_symbolic_var", M('''
        @R.function
        def main(k: R.Prim(value="k")):
            return k
    '''), ["TEXT.SYM.2"])
    bad("missing_return", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.add(x, x)
    '''), ["TEXT.STMT.7", "TEXT.BODY.1"])
    bad("metadata_without_section", M('''
        @R.function
        def main(x: R.Tensor((2,), "float32")):
            c = metadata["relax.expr.Constant"][0]
            y = R.add(x, c)
            return y
    '''), ["TEXT.CONST.3"])
    bad("integer_true_division", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()
            p = R.prim_value(n / 2)
            return p
    '''), ["TEXT.PRIM.2"], "/ between integer scalar expressions is rejected")
    bad("equality_operator", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
            z = x == y
            return z
    '''), ["DIV.27", "TEXT.EXPR.3"], "== between Relax expressions is rejected; R.equal is the operator")
    return out


def definition_cases():
    """Definitions that conflict, casts that cannot hold, captures and purity."""
    out, bad = rejection_collector()
    bad("function_defined_twice", M('''
        @R.function
        def f(x: R.Tensor((3,), "float32")):
            return x

        @R.function
        def f(x: R.Tensor((3,), "float32")):
            y = R.add(x, x)
            return y

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Module
            y = cls.f(x)
            return y
    '''), ["MOD.2", "TEXT.MOD.2", "TEXT.2"], "global names are unique: a second definition of f gives the text no meaning")
    bad("symbolic_dtype_redeclared", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int32()
            return x
    '''), ["TEXT.SYM.1"], "n is an int64 variable of the signature")

    out.append(Invalid("impossible_prim_value_cast", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            p = R.prim_value(3)
            q = R.match_cast(p, R.Prim(value=4))
            return q
    '''), "struct_info", spec=["DIV.3", "SI.PRIM.2", "NORM.MATCHCAST.2"], tags=["text", "prim"],
        description="R.prim_value(3) has struct info R.Prim(value=3), which can never be 4"))
    out.append(Invalid("nested_function_captures_symbolic_var", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            n = T.int64()

            @R.function
            def inner(y: R.Tensor(ndim=1, dtype="float32")) -> R.Shape(ndim=1):
                s = R.shape([n])
                return s

            z = inner(x)
            return z
    '''), "well_formed", spec=["DIV.10"], tags=["text", "closure", "symbolic"],
        description="a local function may not use its enclosing function's symbolic variables"))
    out.append(Invalid("purity_of_if_yielding_functions", M('''
        @R.function
        def quiet(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function(pure=False)
        def loud(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            R.print(x, format="{}")
            return x

        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
            cls = Module
            if c:
                f = cls.quiet
            else:
                f = cls.loud
            y = f(x)
            return y
    '''), "well_formed", spec=["DIV.28", "SI.LCA.6", "WF.PURITY.1"], tags=["text", "purity", "if"],
        description="an If that may yield an impure function yields an impure one, so calling it in a pure function is ill-formed"))
    return out


def rejected():
    return unsafe_text_cases() + form_cases() + definition_cases()


def generate():
    return {"text": accepted() + rejected()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_text"])
