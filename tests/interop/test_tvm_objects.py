"""TVM objects at relax-ref's entry points (spec rules TEXT.TVM.1, EXPR.EQ.4).

Without TVM, stand-in classes whose type lives in a ``tvm.*`` module play the foreign objects (only
the type's module name is read); the ``tvm``-marked tests use the installed TVM.
"""

import subprocess
import sys
import textwrap

import numpy as np
import pytest

import relax_ref
from relax_ref.errors import ParseError, TypeMismatchError

TEXT = textwrap.dedent("""
    from tvm.script import ir as I, relax as R

    @I.ir_module
    class Module:
        @R.function
        def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            y = R.add(x, R.const(1.5, "float32"))
            return y
""")


def _stand_in(module: str, name: str, text: str = TEXT, meta_text: str = ""):
    """An object whose type looks like ``module.name`` and prints ``text`` like TVM's ``script()``."""

    def script(self, show_meta=False):
        self.calls.append(show_meta)
        return meta_text if show_meta else text

    cls = type(name, (), {"script": script, "__module__": module})
    obj = cls()
    obj.calls = []
    return obj


def test_a_tvm_ir_module_is_read_through_its_printed_text():
    fake = _stand_in("tvm.ir.module", "IRModule")
    mod = relax_ref.parse(fake)
    assert relax_ref.structural_equal(mod, relax_ref.parse(TEXT))
    assert relax_ref.structural_equal(fake, mod) and relax_ref.structural_equal(mod, fake)
    relax_ref.assert_structural_equal(fake, relax_ref.parse(TEXT))
    np.testing.assert_array_equal(relax_ref.evaluate(fake, "main", np.zeros(3, "float32")), np.full(3, 1.5, "float32"))
    assert fake.calls and not any(fake.calls)  # no metadata: printed once per conversion, without show_meta


def test_the_metadata_section_is_requested_only_when_the_text_refers_to_it():
    with_meta = TEXT.replace('R.const(1.5, "float32")', 'metadata["relax.expr.Constant"][0]')
    fake = _stand_in("tvm.ir.module", "IRModule", text=with_meta + "\n# Metadata omitted.", meta_text=TEXT)
    relax_ref.parse(fake)
    assert fake.calls == [False, True]


def test_reading_errors_name_the_printed_text():
    fake = _stand_in("tvm.ir.module", "IRModule", text=TEXT.replace("R.add", "R.no_such_op"))
    with pytest.raises(ParseError) as info:
        relax_ref.parse(fake)
    assert "tvm.IRModule printed by TVM" in str(info.value)


@pytest.mark.parametrize("api", ["parse", "evaluate", "structural_equal", "assert_structural_equal"])
def test_other_foreign_objects_get_an_error_naming_their_type(api):
    fake = _stand_in("tvm.relax.expr", "Function")
    fn = getattr(relax_ref, api)
    args = {"parse": (fake,), "evaluate": (fake, "main"), "structural_equal": (fake, relax_ref.parse(TEXT)),
            "assert_structural_equal": (relax_ref.parse(TEXT), fake)}[api]
    with pytest.raises(TypeMismatchError, match=r"tvm\.relax\.expr\.Function"):
        fn(*args)


def test_non_tvm_objects_are_named_too():
    with pytest.raises(TypeMismatchError, match="relax_ref.parse expects TVMScript text .* got int"):
        relax_ref.parse(3)
    with pytest.raises(TypeMismatchError, match="got bytes"):
        relax_ref.parse(TEXT.encode())
    with pytest.raises(TypeMismatchError, match=r"got a somelib\.Graph"):
        relax_ref.structural_equal(_stand_in("somelib", "Graph"), relax_ref.parse(TEXT))
    with pytest.raises(TypeMismatchError, match="relax_ref.evaluate expects an IRModule"):
        relax_ref.evaluate(TEXT, "main")


def test_relax_jax_compile_accepts_a_tvm_ir_module_and_names_other_types():
    relax_jax = pytest.importorskip("relax_jax")
    exe = relax_jax.compile(_stand_in("tvm.ir.module", "IRModule"))
    np.testing.assert_array_equal(np.asarray(exe("main", np.ones(3, "float32"))), np.full(3, 2.5, "float32"))
    with pytest.raises(TypeMismatchError, match=r"relax_jax.compile expects .* got tvm\.tirx\.function\.PrimFunc"):
        relax_jax.compile(_stand_in("tvm.tirx.function", "PrimFunc"))


def test_tvm_is_never_imported_for_relax_ref_objects():
    code = textwrap.dedent(f"""
        import sys
        import numpy as np
        import relax_ref
        text = {TEXT!r}
        mod = relax_ref.parse(text)
        assert relax_ref.structural_equal(mod, relax_ref.parse(text))
        relax_ref.evaluate(mod, "main", np.zeros(3, "float32"))
        try:
            relax_ref.parse(3)
        except relax_ref.RelaxError:
            pass
        assert "tvm" not in sys.modules and "tvm_ffi" not in sys.modules, sorted(sys.modules)
    """)
    subprocess.run([sys.executable, "-c", code], check=True)


# ---------------------------------------------------------------------------------------------------
# With the installed TVM
# ---------------------------------------------------------------------------------------------------


def _tvm_module(text):
    pytest.importorskip("tvm")
    from tvm.script import from_source

    return from_source("\n".join(ln for ln in text.splitlines() if not ln.startswith("from ")))


@pytest.mark.tvm
def test_real_tvm_module_at_every_entry_point():
    tm = _tvm_module(TEXT)
    ours = relax_ref.parse(TEXT)
    assert relax_ref.structural_equal(tm, ours)
    relax_ref.assert_structural_equal(ours, tm)
    x = np.arange(3, dtype="float32")
    np.testing.assert_array_equal(relax_ref.evaluate(tm, "main", x), x + 1.5)
    relax_jax = pytest.importorskip("relax_jax")
    np.testing.assert_array_equal(np.asarray(relax_jax.compile(tm)("main", x)), x + 1.5)
    with pytest.raises(TypeMismatchError, match=r"tvm\.relax\.expr\.Function"):
        relax_ref.parse(tm["main"])
    with pytest.raises(TypeMismatchError, match=r"tvm\.relax\.expr\.Function"):
        relax_ref.structural_equal(tm["main"], ours["main"])


@pytest.mark.tvm
def test_real_tvm_module_after_legalization_with_constants():
    """LegalizeOps output (TensorIR kernels, a folded constant printed in the metadata section)."""
    pytest.importorskip("tvm")
    from tvm import relax as tr

    text = textwrap.dedent("""
        @I.ir_module
        class Module:
            @R.function
            def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
                a = R.arange(0, 3, 1, "float32")
                y = R.multiply(x, a)
                z = R.nn.softmax(y, axis=1)
                return z
    """)
    legal = tr.transform.LegalizeOps()(_tvm_module(text))
    assert "metadata[" in legal.script()
    ours = relax_ref.parse(legal)
    assert len(ours.functions_items()) == len(legal.functions)
    x = np.random.default_rng(0).standard_normal((2, 3)).astype("float32")
    e = np.exp(x * np.arange(3, dtype="float32"))
    np.testing.assert_allclose(relax_ref.evaluate(legal, "main", x), e / e.sum(axis=1, keepdims=True), rtol=1e-6)
