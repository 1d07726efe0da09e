"""Texts that must be rejected before anything runs.

``invalid``: the text describes a program, but the program breaks a struct-info or well-formedness
rule (the cited rule is the oracle). ``malformed``: the text is not a program at all (Python syntax,
unknown names, constructs the text format does not allow).
"""

from relax_conformance.gen import Invalid, module_text

from case_helpers import rejection_collector


def M(body):  # noqa: N802 - reads like the module it builds
    return module_text(body)


def _invalid_collector():
    """A list of cases, and ``si`` and ``wf``, which append a function body that must be rejected with
    a struct_info or a well_formed error to it."""
    out = []

    def si(name, body, spec, description="", tags=()):
        out.append(Invalid(name, M(body), "struct_info", spec=spec, tags=["static"] + list(tags),
                           description=description))

    def wf(name, body, spec, description="", tags=()):
        out.append(Invalid(name, M(body), "well_formed", spec=spec, tags=["static"] + list(tags),
                           description=description))

    return out, si, wf


def operator_cases():
    """Operator operands and match_cast targets that cannot agree."""
    out, si, wf = _invalid_collector()
    si("binary_dtype_mismatch", '''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "int32")):
            z = R.add(x, y)
            return z
    ''', ["NORM.OP.DTYPE.1", "NORM.CALL.1", "TEXT.3"], "binary operators require equal dtypes", ["op:add"])
    si("broadcast_conflict", '''
        @R.function
        def main(x: R.Tensor((3,), "float32"), y: R.Tensor((4,), "float32")):
            z = R.multiply(x, y)
            return z
    ''', ["NORM.OP.BCAST.1", "NORM.CALL.1"], "3 and 4 are not broadcast-compatible", ["op:multiply"])
    si("float_only_op_on_int", '''
        @R.function
        def main(x: R.Tensor((3,), "int32")):
            z = R.exp(x)
            return z
    ''', ["NORM.OP.DTYPE.2"], "exp requires a float operand", ["op:exp"])
    si("reshape_element_count", '''
        @R.function
        def main(x: R.Tensor((3, 4), "float32")):
            y = R.reshape(x, R.shape([5, 2]))
            return y
    ''', ["OP.INFER.1", "NORM.CALL.1"], "12 elements cannot be reshaped to 10", ["op:reshape"])
    si("match_cast_impossible_shape", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.match_cast(x, R.Tensor((4,), "float32"))
            return y
    ''', ["NORM.MATCHCAST.2", "SI.BASE.5", "DIV.5"], "a match_cast that can never succeed is rejected", ["match_cast"])
    si("match_cast_impossible_dtype", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.match_cast(x, R.Tensor((3,), "int32"))
            return y
    ''', ["NORM.MATCHCAST.2", "SI.BASE.5"], tags=["match_cast"])
    si("match_cast_impossible_kind", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.match_cast(x, R.Shape([3]))
            return y
    ''', ["NORM.MATCHCAST.2", "SI.BASE.2"], tags=["match_cast"])
    return out


def call_cases():
    """Calls with the wrong arity or arguments, annotations a binding contradicts."""
    out, si, wf = _invalid_collector()
    si("call_arity", '''
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            z = Module.f(x, x)
            return z
    ''', ["NORM.CALL.3", "SI.CALL.1"], "a call with more arguments than parameters", ["call"])
    si("call_argument_shape", '''
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((4,), "float32")):
            z = Module.f(x)
            return z
    ''', ["NORM.CALL.3", "SI.CALL.2"], "an argument provably outside the parameter's struct info", ["call"])
    si("call_argument_dtype", '''
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((3,), "float16")):
            z = Module.f(x)
            return z
    ''', ["NORM.CALL.3", "SI.BASE.5"], tags=["call"])
    si("call_argument_kind", '''
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(s: R.Shape([3])):
            z = Module.f(s)
            return z
    ''', ["NORM.CALL.3", "SI.BASE.2"], tags=["call"])
    si("call_argument_unknown_dtype", '''
        @R.function
        def f(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            return x

        @R.function
        def main(x: R.Tensor((3,))):
            z = Module.f(x)
            return z
    ''', ["NORM.CALL.3", "SI.BASE.5", "DIV.8", "SI.CALL.3"],
        "an argument of unknown dtype (L1) needs a match_cast before the call", ["call"])
    si("binding_annotation_shape", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y: R.Tensor((4,), "float32") = R.add(x, x)
            return y
    ''', ["TEXT.STMT.3", "WF.SINFO.2", "NORM.ANNOT.1"], "an annotation provably contradicting the inferred struct info", ["binding"])
    si("binding_annotation_dtype", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y: R.Tensor((3,), "int32") = R.add(x, x)
            return y
    ''', ["TEXT.STMT.3", "WF.SINFO.2"], tags=["binding"])
    si("call_non_function", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = x(x)
            return y
    ''', ["NORM.CALL.2"], "the callee of a call must have function struct info", ["call"])
    return out


def kernel_and_tuple_cases():
    """call_tir signatures that conflict, matmul reductions, tuple indices."""
    out, si, wf = _invalid_collector()
    si("call_tir_out_sinfo_conflict", '''
        @T.prim_func
        def copy(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Module
            y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((4,), "float32"))
            return y
    ''', ["CALL.TIR.4", "WF.OPVALID.1", "OP.VALID.1"], "out_sinfo contradicts the PrimFunc's output buffer", ["call_tir"])
    si("call_tir_argument_dtype", '''
        @T.prim_func
        def copy(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
            for i in range(T.int64(3)):
                B[i] = A[i]

        @R.function
        def main(x: R.Tensor((3,), "int32")):
            cls = Module
            y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((3,), "float32"))
            return y
    ''', ["CALL.TIR.4", "OP.VALID.1"], "an int32 tensor passed to a float32 buffer", ["call_tir"])
    si("matmul_reduction_mismatch", '''
        @R.function
        def main(x: R.Tensor((2, 3), "float32"), y: R.Tensor((4, 5), "float32")):
            z = R.matmul(x, y)
            return z
    ''', ["OP.INFER.1", "NORM.CALL.1"], tags=["op:matmul"])
    si("tuple_index_out_of_range", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            t = (x, x)
            y = t[2]
            return y
    ''', ["NORM.INFER.5", "EXPR.TGI.1"], "projecting field 2 of a pair", ["tuple"])
    return out


def purity_and_scope_cases():
    """Impure calls where purity is required, dataflow limits, symbolic variables."""
    out, si, wf = _invalid_collector()
    wf("impure_call_in_pure_function", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            R.print(x, format="{}")
            return x
    ''', ["WF.PURITY.1", "EXPR.PURITY.5", "TEXT.3"], "R.print is impure; main is pure by default", ["purity"])
    wf("impure_packed_in_pure_function", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = R.call_packed("conformance.add", x, x, sinfo_args=R.Tensor((3,), "float32"))
            return y
    ''', ["WF.PURITY.1", "EXPR.PURITY.1"], tags=["purity", "packed"])
    wf("impure_call_in_dataflow", '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                y = R.add(x, x)
                R.print(y, format="{}")
                z = R.multiply(y, y)
                R.output(z)
            return z
    ''', ["WF.DATAFLOW.3", "EXPR.DATAFLOW.1", "EVAL.PROG.2"], "dataflow blocks may not contain impure calls", ["dataflow", "purity"])
    wf("assert_in_dataflow", '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32"), c: R.Tensor((), "bool")):
            with R.dataflow():
                R.assert_op(c, format="c")
                y = R.add(x, x)
                R.output(y)
            return y
    ''', ["WF.DATAFLOW.3", "OP.PURE.1"], tags=["dataflow", "purity"])
    wf("if_in_dataflow", '''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
            with R.dataflow():
                if c:
                    y = R.add(x, x)
                else:
                    y = x
                R.output(y)
            return y
    ''', ["WF.DATAFLOW.2"], "dataflow blocks may not contain If", ["dataflow", "if"])
    wf("undefined_symbolic_var", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            m = T.int64()
            s = R.shape([m])
            return s
    ''', ["WF.SYM.1", "TEXT.SYM.1"], "m is declared but never defined by a parameter or match_cast", ["symbolic"])
    wf("symbolic_var_only_in_expression", '''
        @R.function
        def main(x: R.Tensor(ndim=1, dtype="float32")):
            n = T.int64()
            y = R.match_cast(x, R.Tensor((n * 2,), "float32"))
            return y
    ''', ["WF.SYM.1", "SI.SYM.2", "SI.SYM.3"], "n*2 is not a binding position, so n stays undefined", ["symbolic"])
    wf("impure_global_in_pure_function", '''
        @R.function(pure=False)
        def show(x: R.Tensor((3,), "float32")) -> R.Tuple:
            R.print(x, format="{}")
            return R.tuple()

        @R.function
        def main(x: R.Tensor((3,), "float32")):
            cls = Module
            u = cls.show(x)
            return x
    ''', ["WF.PURITY.1", "EXPR.PURITY.1"], "calling a function declared impure makes the call impure", ["purity"])
    wf("force_pure_requires_pure", '''
        @R.function(pure=False)
        def main(x: R.Tensor((3,), "float32")):
            R.func_attr({"relax.force_pure": True})
            return x
    ''', ["WF.PURITY.2"], "relax.force_pure on a function declared impure", ["purity"])
    return out


def binding_cases():
    """call_tir_inplace indices, binding annotations and global symbols."""
    out, si, wf = _invalid_collector()
    si("call_tir_inplace_index_out_of_range", '''
        @T.prim_func
        def add_into(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
            for i in range(T.int64(4)):
                A[i] = A[i] + B[i]

        @R.function
        def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
            cls = Module
            z = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[2], out_sinfo=R.Tensor((4,), "float32"))
            return z
    ''', ["CALL.INPLACE.2"], "an in-place index must name an input", ["call_tir", "inplace"])
    si("var_binding_annotation_conflict", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y: R.Tensor((3,), "int32") = x
            return y
    ''', ["TEXT.STMT.3", "NORM.ANNOT.2"], "an annotation on a variable-to-variable binding that can never hold", ["binding"])
    wf("global_symbol_mismatch", '''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            R.func_attr({"global_symbol": "other"})
            return x
    ''', ["WF.GLOBAL.2", "MOD.4"], "a global_symbol must equal the function's name", ["module"])
    return out


def invalid():
    return (operator_cases()
            + call_cases()
            + kernel_and_tuple_cases()
            + purity_and_scope_cases()
            + binding_cases())


def syntax_cases():
    """Texts that are not Python or not a module, unknown names, missing annotations."""
    out, bad = rejection_collector()
    bad("python_syntax_error", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"):
            return x
    '''), ["TEXT.1", "TEXT.2"], "the text is not valid Python")
    bad("not_a_module", "from tvm.script import ir as I, relax as R, tirx as T\n\nx = 1\n", ["TEXT.MOD.2", "TEXT.2"],
        "no @I.ir_module class")
    bad("undefined_variable", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            z = R.add(x, w)
            return z
    '''), ["TEXT.EXPR.1", "WF.VAR.1"])
    bad("unknown_operator", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            z = R.frobnicate(x)
            return z
    '''), ["TEXT.EXPR.4"])
    bad("missing_parameter_annotation", M('''
        @R.function
        def main(x):
            return x
    '''), ["TEXT.SIG.1"])
    bad("two_returns", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            return x
            return x
    '''), ["TEXT.BODY.1"])
    bad("string_dim_in_body", M('''
        @R.function
        def main(x: R.Tensor(("n",), "float32")):
            y = R.match_cast(x, R.Tensor(("m",), "float32"))
            return y
    '''), ["TEXT.SINFO.2", "TEXT.STMT.2"], "string dimensions are only allowed in signatures")
    bad("undefined_symbolic_in_return", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor(("m",), "float32"):
            return x
    '''), ["TEXT.SIG.4", "WF.SYM.1"], "m is not defined by any parameter", ["symbolic"])
    return out


def scope_cases():
    """Variables used outside their block or branch, statements the format does not have."""
    out, bad = rejection_collector()
    bad("dataflow_var_after_block", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                y = R.add(x, x)
                z = R.add(y, y)
                R.output(z)
            return y
    '''), ["TEXT.STMT.5", "EXPR.SCOPE.3"], "only the R.output variables are visible after the block", ["dataflow"])
    bad("if_without_else", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
            y = x
            if c:
                y = R.add(x, x)
            return y
    '''), ["TEXT.STMT.4"], tags=["if"])
    bad("branch_variable_after_if", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32"), c: R.Prim("bool")):
            if c:
                a = R.add(x, x)
                y = a
            else:
                y = x
            return a
    '''), ["EXPR.SCOPE.4", "TEXT.EXPR.1", "WF.IF.1"], "a branch-local variable is not visible after the If", ["if"])
    bad("non_unit_expression_statement", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            R.add(x, x)
            return x
    '''), ["TEXT.STMT.6"], "a non-unit value must be bound to a variable")
    bad("unknown_dtype", M('''
        @R.function
        def main(x: R.Tensor((3,), "float33")):
            return x
    '''), ["VAL.DTYPE.1", "TEXT.SINFO.1", "DIV.29"])
    bad("loop_in_relax_function", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            y = x
            for i in range(3):
                y = R.add(y, x)
            return y
    '''), ["TEXT.2", "TEXT.SAFE.3"], "Relax functions have no loops")
    bad("symbolic_only_in_expression_param", M('''
        @R.function
        def main(x: R.Tensor(("n * 2",), "float32")):
            return x
    '''), ["TEXT.SIG.2", "TEXT.EXPR.1"], "n never appears alone, so it is never defined", ["symbolic"])
    bad("output_twice", M('''
        @R.function
        def main(x: R.Tensor((3,), "float32")):
            with R.dataflow():
                y = R.add(x, x)
                R.output(y)
                R.output(y)
            return y
    '''), ["TEXT.STMT.5"], tags=["dataflow"])
    return out


def malformed():
    return syntax_cases() + scope_cases()


def generate():
    return {"invalid": invalid(), "malformed": malformed()}


if __name__ == "__main__":
    from relax_conformance.regen import regenerate

    regenerate(only=["gen_static"])
