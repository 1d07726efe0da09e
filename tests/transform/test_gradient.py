"""Gradient (PASS.GRAD.*): hand cases, and the adjoints of generated programs against jax.grad."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import relax_ref
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir.module import IRModule
from relax_ref.ir.struct_info import TensorStructInfo
from relax_ref.testing import GenConfig
from relax_ref.testing.inputs import inputs_for
from relax_ref.testing.strategies import programs
from relax_ref.transform import Gradient
from relax_ref.transform.gradient_ops import GRADIENTS

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


MLP = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w: R.Tensor((3, 4), "float32"), b: R.Tensor((4,), "float32")):
        with R.dataflow():
            y = R.matmul(x, w)
            z = R.add(y, b)
            r = R.nn.relu(z)
            s = R.nn.log_softmax(r, axis=1)
            loss = R.mean(s)
            R.output(loss)
        return loss
'''


def test_adjoint_function_and_values():
    out = Gradient("main")(_mod(MLP))
    adj = out["main_adjoint"]
    assert adj.global_symbol == "main_adjoint"
    rng = np.random.default_rng(1)
    x, w, b = (rng.standard_normal(s).astype("float32") for s in ((2, 3), (3, 4), (4,)))
    loss, grads = relax_ref.evaluate(out, "main_adjoint", x, w, b)
    jax = pytest.importorskip("jax")
    import jax.numpy as jnp

    def f(x, w, b):
        r = jnp.maximum(x @ w + b, 0)
        return jnp.mean(jax.nn.log_softmax(r, axis=1))

    want = jax.grad(f, argnums=(0, 1, 2))(x, w, b)
    np.testing.assert_allclose(loss, f(x, w, b), rtol=1e-5)
    for g, e in zip(grads, want):
        np.testing.assert_allclose(g, np.asarray(e), rtol=1e-4, atol=1e-6)


def test_require_grads_by_name_and_errors():
    mod = _mod(MLP)
    out = Gradient("main", require_grads=["w"])(mod)
    assert len(out["main_adjoint"].ret_struct_info.fields[1].fields) == 1
    out = Gradient("main", require_grads=mod["main"].params[2])(mod)
    assert len(out["main_adjoint"].ret_struct_info.fields[1].fields) == 1
    with pytest.raises(RelaxError):
        Gradient("nowhere")(mod)
    with pytest.raises(RelaxError):
        Gradient("main", target_index=1)(mod)
    vec = _mod(MLP.replace("loss = R.mean(s)", "loss = R.mean(s, axis=[1])"))
    with pytest.raises(RelaxError):          # the target must be a scalar
        Gradient("main")(vec)
    flag = _mod(MLP.replace("):\n", ', flag: R.Prim("bool")):\n', 1))
    with pytest.raises(RelaxError, match="flag"):   # every parameter is required by default (PASS.GRAD.1)
        Gradient("main")(flag)
    assert "main_adjoint" in Gradient("main", require_grads=["w"])(flag)


# ---------------------------------------------------------------------------------------------------
# Property: against jax.grad of the JAX executor's lowering of the same program
# ---------------------------------------------------------------------------------------------------

_OPS = tuple(sorted(n for n in GRADIENTS if n not in (
    "relax.take", "relax.nn.nll_loss", "relax.nn.max_pool2d", "relax.nn.avg_pool2d", "relax.power", "relax.abs",
    "relax.maximum", "relax.minimum", "relax.nn.relu", "relax.cumsum", "relax.triu",
    "relax.nn.cross_entropy_with_logits", "relax.nn.conv2d")))
_CFG = GenConfig(max_bindings=6, max_params=3, dtypes=(("float32", 1),), ops=_OPS,
                 features=frozenset({"dataflow", "tuple"}))


def _with_loss(mod: IRModule):
    """``main`` ending in ``loss = sum(result)``, or None when it is not one dataflow block returning a
    float tensor."""
    f = mod["main"]
    body = f.body
    if not (isinstance(body, rx.SeqExpr) and len(body.blocks) == 1 and isinstance(body.blocks[0], rx.DataflowBlock)):
        return None
    r = body.body
    si = r.struct_info
    if not isinstance(r, rx.Var) or not isinstance(si, TensorStructInfo) or si.dtype != "float32":
        return None
    loss = rx.Var(name_hint="loss")
    block = rx.DataflowBlock(body.blocks[0].bindings + (rx.VarBinding(loss, rx.Call(rx.Op("relax.sum"), (r,))),))
    g = rx.Function(f.params, rx.SeqExpr((block,), loss), None, f.is_pure, attrs=f.attrs)
    from relax_ref.static.normalize import normalize_module

    return normalize_module(IRModule({gv: (g if gv.name_hint == "main" else h) for gv, h in mod.functions_items()}),
                            script_annotations=False)


@settings(max_examples=30, deadline=None)
@given(prog=programs(_CFG), seed=st.integers(0, 2 ** 16))
def test_gradient_matches_jax_grad(prog, seed):
    jax = pytest.importorskip("jax")
    relax_jax = pytest.importorskip("relax_jax")
    mod = _with_loss(prog.mod)
    if mod is None or any(not isinstance(p.struct_info, TensorStructInfo) for p in mod["main"].params):
        return
    args = inputs_for(prog, 3, seed)
    try:
        expected_loss = relax_ref.evaluate(mod, "main", *args)
    except RelaxError:
        return                          # not a valid input for this program
    out = Gradient("main")(mod)
    relax_ref.static.well_formed.check_well_formed(out)
    loss, grads = relax_ref.evaluate(out, "main_adjoint", *args)
    np.testing.assert_allclose(loss, expected_loss, rtol=1e-5, atol=1e-6)
    f = relax_jax.compile(mod).as_jax_function("main")
    want = jax.grad(lambda *a: f(*a), argnums=tuple(range(len(args))))(*args)
    assert len(grads) == len(want)
    for g, e in zip(grads, want):
        e = np.asarray(e)
        if not np.all(np.isfinite(e)):
            return
        np.testing.assert_allclose(g, e, rtol=2e-3, atol=2e-4)


CHECKPOINTED = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((3,), "float32"), y: R.Tensor((3,), "float32")):
        with R.dataflow():
            xs = R.grad.start_checkpoint(x)
            a = R.multiply(xs, y)
            b = R.exp(a)
            c = R.grad.end_checkpoint(b)
            d = R.multiply(c, c)
            loss = R.sum(d)
            R.output(loss)
        return loss
'''


def test_checkpoints_recompute_and_give_the_same_adjoints():
    """PASS.GRAD.6: the markers are removed; a and b (inside the checkpoint) are recomputed for the
    backward pass; d's operands (after end_checkpoint) are kept."""
    mod = _mod(CHECKPOINTED)
    out = Gradient("main")(mod)
    names = [b.var.name_hint for b in out["main_adjoint"].body.blocks[0].bindings]
    assert "a_cp" in names and "d_cp" not in names
    assert not any(isinstance(b.value, rx.Call) and getattr(b.value.op, "name", "").startswith("relax.grad.")
                   for b in out["main_adjoint"].body.blocks[0].bindings)
    x = np.array([0.1, -0.5, 0.3], "float32")
    y = np.array([1.0, 2.0, -1.0], "float32")
    loss, (gx, gy) = relax_ref.evaluate(out, "main_adjoint", x, y)
    e = np.exp(x * y)
    np.testing.assert_allclose(loss, np.sum(e * e), rtol=1e-5)
    np.testing.assert_allclose(gx, 2 * e * e * y, rtol=1e-5)      # d/dx sum(exp(xy)^2) = 2 exp(2xy) y
    np.testing.assert_allclose(gy, 2 * e * e * x, rtol=1e-5)
