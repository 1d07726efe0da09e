"""Differential testing of TVM's passes (relax_ref.testing.tvm_bridge) and the TVM findings recorded in
docs/tvm-findings.md (each test pins one finding's reproducer, on the installed release: TVM 0.25 or 0.27,
with what each release does)."""

import pytest

tvm = pytest.importorskip("tvm")

import tvm_compat as tc  # noqa: E402
from relax_ref.script.dialect import installed_tvm_dialect
from relax_ref.testing.program import GenConfig, Program, generate  # noqa: E402
from relax_ref.testing.source import RandomSource  # noqa: E402
from relax_ref.testing.tvm_bridge import TvmPassRunner, check_case_tvm  # noqa: E402

pytestmark = pytest.mark.tvm

HEADER = "from tvm.script import ir as I, relax as R, tirx as T\n"


@pytest.fixture(scope="module")
def runner():
    with TvmPassRunner(timeout=120) as r:
        yield r


def _program(parse_ir, body: str) -> Program:
    return Program.from_module(parse_ir(HEADER + body))


def _main(parse_ir, main: str) -> Program:
    """The program of a module ``M`` holding the Relax function ``main`` (its text, indented)."""
    return _program(parse_ir, "\n@I.ir_module\nclass M:\n    @R.function" + main)


def test_fusion_pipeline_agrees_with_the_reference(parse_ir, runner):
    prog = _main(parse_ir, """
    def main(x: R.Tensor(("n", 4), "float32"), y: R.Tensor((4,), "float32")):
        with R.dataflow():
            a = R.add(x, y)
            b = R.exp(a)
            c = R.sum(b, axis=[1])
            R.output(c)
        return c
""")
    out = check_case_tvm(prog, ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps", "FuseTIR"], runner)
    assert out.ok, out.report()


def test_generated_programs_through_legalize(runner):
    for seed in range(4):
        prog = generate(RandomSource(seed), GenConfig(op_pattern=True, max_bindings=4))
        out = check_case_tvm(prog, ["LegalizeOps", "DeadCodeElimination"], runner, seed=seed)
        assert out.symptom in ("ok", "read-back"), out.report()


def test_finding_fold_constant_crashes_on_unknown_shape(parse_ir, runner):
    """TVM-F1: FoldConstant legalizes every operator call in a dataflow block, constant or not,
    and the legalization asserts a ShapeExpr shape."""
    prog = _main(parse_ir, """
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.match_cast(x, R.Tensor("float32", ndim=1))
            lv1 = R.nn.relu(lv)
            R.output(lv1)
        return lv1
""")
    out = check_case_tvm(prog, ["FoldConstant"], runner)
    assert out.symptom == "crash" and "ShapeExpr" in out.message, out.report()


def test_finding_median_keepdims_drops_dims(parse_ir, runner):
    """TVM-F3: LegalizeOps gives median(axis=None, keepdims=True) the shape (1,) instead of all-ones
    of the input's rank, which changes main's return struct info."""
    prog = _main(parse_ir, """
    def main(z: R.Tensor((1, 3, 3, 1), "float32")):
        gv = R.median(z, axis=None, keepdims=True)
        return gv
""")
    out = check_case_tvm(prog, ["LegalizeOps"], runner)
    assert out.symptom == "signature" and "R.Tensor((1,)" in out.message, out.report()


def test_finding_median_keepdims_breaks_a_later_sum(parse_ir, runner):
    """TVM-F3 seen through a later binding (rerun signature crash-LegalizeOps-22be6c3d, seed 51515):
    the legalized median has rank 1, so re-normalizing a following sum(axis=[2]) aborts; with max
    in place of median TVM legalizes it, and relax-ref's LegalizeOps handles both."""
    from relax_ref.testing.oracle import check_case
    from relax_ref.transform import LegalizeOps

    body = """
@I.ir_module
class M:
    @R.function
    def main(z: R.Tensor((1, 3, 3, 1), "float32")):
        lv = R.median(z, axis=None, keepdims=True)
        gv = R.sum(lv, axis=[2], keepdims=False)
        return gv
"""
    prog = _program(parse_ir, body)
    out = check_case_tvm(prog, ["LegalizeOps"], runner)
    assert out.symptom == "crash" and out.failed_pass == "LegalizeOps" and "relax.sum" in out.message \
        and "axis 2 is out of range" in out.message, out.report()
    ref = check_case(prog, [LegalizeOps()])
    assert ref.ok, ref.report()
    control = check_case_tvm(_program(parse_ir, body.replace("R.median", "R.max")), ["LegalizeOps"], runner)
    assert control.ok, control.report()


def test_legalized_sort_kernels_read_back(parse_ir, runner):
    """TVM legalizes median (and sort) into kernels that call a packed sort function; relax-ref
    reads them back and runs them (the campaign's `read-back` failures)."""
    prog = _main(parse_ir, """
    def main(x: R.Tensor((4,), "float32")):
        gv = R.median(x, axis=None, keepdims=False)
        return gv
""")
    out = check_case_tvm(prog, ["LegalizeOps"], runner)
    assert out.ok, out.report()


def test_tvm_load_errors_are_not_pass_failures(runner):
    reply = runner.run("this is not TVMScript", ["LegalizeOps"])
    assert reply.status == "load-error"


def test_finding_fuse_ops_cycle_with_match_cast(parse_ir, runner):
    """TVM-F2: FuseOps aborts ("cyclic dependency detected between the groups") when a call_tir
    uses both a value and a match_cast of it in one dataflow block."""
    prog = _main(parse_ir, """
    def main(z: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.nn.relu(z)
            lv3 = R.match_cast(lv, R.Tensor((4,), "float32"))
            gv = R.add(lv3, lv)
            R.output(gv)
        return gv
""")
    out = check_case_tvm(prog, ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps"], runner)
    assert out.symptom == "crash" and out.failed_pass == "FuseOps" and "cyclic" in out.message, out.report()


def test_finding_rms_norm_of_a_vector(parse_ir, runner):
    """TVM-F4: LegalizeOps aborts on nn.rms_norm of a 1-D tensor (axes=[-1])."""
    prog = _main(parse_ir, """
    def main(x: R.Tensor((4,), "float32")):
        gv = R.nn.rms_norm(x, R.const([1.5, 1.25, 1.0, 0.75], "float32"), axes=[-1])
        return gv
""")
    out = check_case_tvm(prog, ["LegalizeOps"], runner)
    assert out.symptom == "crash" and "dimension mismatch" in out.message, out.report()


def test_finding_fuse_ops_drops_an_output_binding(parse_ir, runner):
    """TVM-F5: FuseOps groups two relu kernels into one function returning a tuple but forgets to
    bind the second output when the first one also feeds a match_cast: the output refers to an
    undefined variable."""
    prog = _main(parse_ir, """
    def main(z: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.nn.relu(z)
            lv1 = R.match_cast(lv, R.Tensor("float32", ndim=1))
            lv2 = R.nn.relu(lv)
            R.output(lv1, lv2)
        return lv2
""")
    out = check_case_tvm(prog, ["LegalizeOps", "AnnotateTIROpPattern", "FuseOps"], runner)
    if tc.RELEASE >= (0, 27):  # fixed in TVM 0.27: both outputs are bound to their tuple elements
        assert out.ok, out.report()
        return
    assert out.symptom == "ill-formed" and out.failed_pass == "FuseOps" and "not defined" in out.message, \
        out.report()


EYE_LIKE_UNKNOWN_SHAPE = """from tvm.script import ir as I, relax as R, tirx as T
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), dtype="float32")):
        with R.dataflow():
            lv: R.Tensor(dtype="float32", ndim=2) = R.match_cast(x, R.Tensor(dtype="float32", ndim=2))
            lv1: R.Tensor(dtype="float32", ndim=2) = R.eye_like(lv, R.prim_value(-1))
            R.output(lv1)
        return lv1
"""


def test_finding_eye_like_of_unknown_shape(runner):
    """TVM-F6: eye_like's struct info inference reads the input's shape unconditionally, so TVM
    cannot even load a module applying eye_like to a tensor of known rank but unknown shape;
    zeros_like in the same place loads."""
    reply = runner.run(EYE_LIKE_UNKNOWN_SHAPE, [])
    assert reply.status == "load-error", reply
    control = runner.run(EYE_LIKE_UNKNOWN_SHAPE.replace("R.eye_like(lv, R.prim_value(-1))", "R.zeros_like(lv)"), [])
    assert control.status == "ok", control


def test_finding_fuse_ops_dead_output_in_if_branch(parse_ir, runner):
    """TVM-F7: FuseOps aborts ("could not be found in any group") on a dataflow block inside an If
    branch that binds an output variable nobody uses."""
    prog = _main(parse_ir, """
    def main(z: R.Tensor((2,), "float32")):
        if R.prim_value(True):
            with R.dataflow():
                gv = R.negative(z)
                gv1 = R.exp(z)
                R.output(gv, gv1)
            cond_out = gv1
        else:
            cond_out = z
        return cond_out
""")
    out = check_case_tvm(prog, ["FuseOps"], runner)
    assert out.symptom == "crash" and out.failed_pass == "FuseOps" and "could not be found in any group" in out.message, \
        out.report()


def test_finding_lambda_lift_shares_symbolic_vars(parse_ir, runner):
    """TVM-F8: LambdaLift lifts a capturing closure whose parameter has a symbolic shape; TVM's
    well-formedness check counts the signature of the GlobalVar passed to make_closure as part of
    main and finds the variable in two functions (relax-ref: WF.SYM.2, DIV.31)."""
    prog = _main(parse_ir, """
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")):
        d = T.int64()
        @R.function
        def local_fn(p0: R.Tensor((d,), "float32")) -> R.Tensor((d,), "float32"):
            lv = R.add(y, y)
            gv = R.nn.relu(p0)
            return gv
        gv1 = local_fn(x)
        return gv1
""")
    out = check_case_tvm(prog, ["LambdaLift"], runner)
    if tc.RELEASE >= (0, 27):  # gone in TVM 0.27: d is a module-level TypeVar, which both functions may use
        assert out.ok, out.report()
        return
    assert out.symptom == "ill-formed" and out.failed_pass == "LambdaLift" and "Symbolic Var d" in out.message, \
        out.report()


def test_finding_fuse_tir_drops_a_closure_parameter(parse_ir, runner):
    """TVM-F9: FuseTIR (its RemoveUnusedParameters step) removes an unused captured parameter from a
    lifted closure and renames the function, but R.make_closure still names the old function."""
    prog = _main(parse_ir, """
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")):
        @R.function
        def local_fn(p0: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
            lv = R.add(p0, y)
            gv = R.nn.relu(p0)
            return gv
        gv1 = local_fn(x)
        return gv1
""")
    out = check_case_tvm(prog, ["LambdaLift", "FuseTIR"], runner)
    assert out.symptom == "ill-formed" and out.failed_pass == "FuseTIR" and "is not defined" in out.message, \
        out.report()


def test_finding_broadcast_to_symbolic_dim_to_one(parse_ir, runner):
    """TVM-F10 (rerun signature crash-LegalizeOps-18d3dbef, seed 51269): LegalizeOps aborts in TOPI's
    broadcast_to (ICHECK EqualCheck(output_shape[i], bh.common_shape[i])) when a symbolic input dim
    meets a target dim that is the literal 1. TVM loads the module (its well-formedness check passes);
    relax-ref evaluates it and its own LegalizeOps agrees with the original."""
    from relax_ref.testing.oracle import check_case
    from relax_ref.transform import LegalizeOps

    prog = _main(parse_ir, """
    def main(x: R.Tensor((1,), "float32")):
        k = T.int64()
        lv = R.match_cast(x, R.Tensor((k,), "float32"))
        gv = R.broadcast_to(lv, R.shape([2, 1]))
        return gv
""")
    loaded = runner.run(prog.mod.script(dialect=installed_tvm_dialect()), [])
    assert loaded.status == "ok", loaded
    out = check_case_tvm(prog, ["LegalizeOps"], runner)
    assert out.symptom == "crash" and out.failed_pass == "LegalizeOps" \
        and "EqualCheck(output_shape[i], bh.common_shape[i])" in out.message, out.report()
    ref = check_case(prog, [LegalizeOps()])
    assert ref.ok, ref.report()


@pytest.mark.parametrize("dead_tail", [False, True])
def test_reference_fuse_ops_on_the_f5_pattern(parse_ir, dead_tail):
    """relax-ref's own FuseOps on TVM-F5's pattern (a fused value that also feeds a match_cast):
    every output is re-bound, also when the group's last binding is dead and its single output is
    an earlier binding."""
    from relax_ref.testing.oracle import check_case
    from relax_ref.transform import AnnotateTIROpPattern, FuseOps, LegalizeOps

    outputs = "R.output()" if dead_tail else "R.output(lv1, lv2)"
    result = "x" if dead_tail else "lv2"
    prog = _main(parse_ir, f"""
    def main(x: R.Tensor((4,), "float32")):
        with R.dataflow():
            lv = R.nn.relu(x)
            lv1 = R.match_cast(lv, R.Tensor((4,), "float32"))
            lv2 = R.nn.relu(lv)
            {outputs}
        return {result}
""")
    out = check_case(prog, [LegalizeOps(), AnnotateTIROpPattern(), FuseOps()], untested=2)
    assert out.ok, out.report()


SCALAR_CALL = HEADER + """
@I.ir_module
class M:
    @R.function
    def f(p: R.Prim("int64")) -> R.Prim("int64"):
        return p

    @R.function
    def main() -> R.Prim("int64"):
        cls = M
        u = cls.f(R.prim_value(T.int64(5)))
        return u
"""


def test_finding_tvm027_cannot_read_its_print_of_a_call_with_a_scalar_constant():
    """TVM-F11: TVM 0.27 prints a call of a global function with a constant scalar argument as
    ``cls.f(5)``, and its parser refuses that text ("Do not know how to handle GlobalVar.__call__ for
    types [<class 'int'>]"). TVM 0.25 prints ``R.prim_value(5)`` and reads its print back."""
    mod = tvm.script.from_source(_without_imports(tc.tvm_text(SCALAR_CALL)))
    text = mod.script()
    if tc.RELEASE < (0, 27):
        assert "cls.f(R.prim_value(5))" in text
        tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
        return
    assert "cls.f(5)" in text
    with pytest.raises(Exception, match=r"Do not know how to handle GlobalVar.__call__ for types \[<class 'int'>\]"):
        tvm.script.from_source(text)


def _without_imports(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if not line.startswith(("from tvm", "import tvm")))


def test_finding_float64_literal_beyond_float32_range():
    """TVM-F12 (TVM 0.25 and 0.27): T.float64(x) goes through a float32 immediate, so TVM refuses its
    own print of a float64 constant outside the float32 range; relax-ref reads the text."""
    from relax_ref.script.parser import parse_function

    fn = tvm.tirx.PrimFunc([], tvm.tirx.Evaluate(tvm.tirx.FloatImm("float64", 1e300)))
    text = fn.script()
    with pytest.raises(Exception, match="exceeds maximum of float32"):
        tvm.script.from_source(text)
    ours = parse_function(text)
    assert ours.body.value.value == 1e300 and ours.body.value.dtype == "float64"


SYMBOL_PARAMETER_CALL = HEADER + """
@I.ir_module
class M:
    @R.function
    def widen(k: R.Prim(value="n")) -> R.Shape(["n"]):
        n = T.int64()
        r = R.shape([n])
        return r

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Shape(["m"]):
        m = T.int64()
        cls = M
        r = cls.widen(R.prim_value(m))
        return r
"""


def test_finding_tvm027_call_of_a_scalar_symbol_parameter():
    """TVM-F13 (TVM 0.27): a call of a function whose scalar parameter is its own symbol (``n: T.int64``)
    leaves the callee's ``n`` in the caller, and TVM's own well-formedness check rejects the module
    ("Var n is not defined"); TVM 0.25 (``R.Prim(value="n")``) accepts it."""
    from tvm import relax

    mod = tvm.script.from_source(_without_imports(tc.tvm_text(SYMBOL_PARAMETER_CALL)), check_well_formed=False)
    if tc.RELEASE < (0, 27):
        assert relax.analysis.well_formed(mod) is not False
        return
    with pytest.raises(Exception, match="Var n is not defined"):
        relax.analysis.well_formed(mod)


def test_finding_tvm027_comparison_folding_depends_on_import_order():
    """TVM-F14 (TVM 0.27): whether the TIR parser folds a comparison of two immediates depends on whether
    ``tvm.script.relax`` was imported after ``tvm.script.tirx`` (one operator table entry for both
    parsers' expressions). Run in fresh processes: the import order is the point."""
    import subprocess
    import sys

    probe = ("import tvm\n{imports}\nfrom tvm.script import tirx as T\n"
             "src = '@T.prim_func\\ndef f(x: T.int32):\\n    T.evaluate(T.int32(1) < 2)\\n'\n"
             "print(type(tvm.script.from_source(src, extra_vars={{'T': T}}).body.value).__name__)\n")
    kinds = {}
    for name, imports in (("tir only", "from tvm.script import tirx as T"),
                          ("relax last", "from tvm.script import tirx as T\nfrom tvm.script import relax as R")):
        out = subprocess.run([sys.executable, "-c", probe.format(imports=imports)], capture_output=True,
                             text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-2000:]
        kinds[name] = out.stdout.split()[-1]
    assert kinds["tir only"] == "LT"
    assert kinds["relax last"] == ("IntImm" if tc.RELEASE >= (0, 27) else "LT")


NESTED_SYMBOL_SHARED = HEADER + """
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        @R.function
        def neg(z: R.Tensor(("k",), "float32")) -> R.Tensor(("k",), "float32"):
            w = R.negative(z)
            return w
        f = neg
        r = f(x)
        return r
"""


def test_finding_tvm027_print_declares_a_nested_symbol_twice():
    """TVM-F15 (TVM 0.27): TVM prints a nested function's symbol that its enclosing function also uses
    (``f``'s annotation) twice, ``k = T.int64()`` and ``k = TypeVar("k")``, and cannot read the print
    back; relax-ref's tvm-0.27 print declares it once and TVM reads it."""
    from relax_ref import parse, structural_equal
    from relax_ref.script.printer import print_module

    mod = tvm.script.from_source(_without_imports(tc.tvm_text(NESTED_SYMBOL_SHARED)))
    text = mod.script()
    ours = print_module(parse(NESTED_SYMBOL_SHARED), dialect=tc.DIALECT)
    tvm.ir.assert_structural_equal(tvm.script.from_source(_without_imports(ours)), mod)
    if tc.RELEASE < (0, 27):
        tvm.ir.assert_structural_equal(tvm.script.from_source(text), mod)
        return
    assert 'k = TypeVar("k")' in text and "k = T.int64()" in text
    assert ours.count("k = ") == 1
    with pytest.raises(Exception, match="Mismatched type"):
        tvm.script.from_source(text)
    assert structural_equal(parse(ours), parse(NESTED_SYMBOL_SHARED))
