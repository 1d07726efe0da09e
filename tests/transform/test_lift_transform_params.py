"""LiftTransformParams and BundleModelParams (PASS.LIFT.*, PASS.BUNDLE.1): hand cases and a property
test that runs the lifted transform and the runtime function one after the other."""

import numpy as np
import pytest

import relax_ref
from relax_ref.static.normalize import normalize_module
from relax_ref.errors import RelaxError
from relax_ref.ir import expr as rx
from relax_ref.ir.module import IRModule
from relax_ref.testing import GenConfig, check_pass
from relax_ref.transform import BundleModelParams, LiftTransformParams, PassContext, module_pass
from relax_ref.transform.utils import copy_function

HEAD = "from tvm.script import ir as I, relax as R, tir as T\n"


def _mod(body):
    return relax_ref.parse(HEAD + body)


TWO = '''
@I.ir_module
class M:
    @R.function
    def main(x: R.Tensor((2, 3), "float32"), w1: R.Tensor((3, 4), "float32"), w2: R.Tensor((4,), "float32")):
        R.func_attr({"num_input": 1})
        with R.dataflow():
            wt = R.permute_dims(R.permute_dims(w1))
            b = R.add(w2, R.const(1.0, "float32"))
            z = R.zeros((2, 4), "float32")
            y = R.matmul(x, wt)
            r = R.add(R.add(y, b), z)
            R.output(r)
        return r
'''


def test_lift_local():
    out = LiftTransformParams()(_mod(TWO))
    assert sorted(out) == ["main", "main_transform_params"]
    tp = out["main_transform_params"]
    assert tp.global_symbol == "main_transform_params" and int(tp.attrs["num_input"]) == 0
    assert len(tp.params) == 1 and len(tp.ret_struct_info.fields) == 2        # (wt, b)
    main = out["main"]
    assert [p.name_hint for p in main.params] == ["x", "wt", "b"]
    rng = np.random.default_rng(0)
    x, w1, w2 = (rng.standard_normal(s).astype("float32") for s in ((2, 3), (3, 4), (4,)))
    lifted = relax_ref.evaluate(out, "main_transform_params", (w1, w2))
    got = relax_ref.evaluate(out, "main", x, *lifted)
    np.testing.assert_allclose(got, relax_ref.evaluate(_mod(TWO), "main", x, w1, w2), rtol=1e-5)


def test_lift_shared_and_errors():
    two = _mod(TWO.replace("class M:", "class M:\n    @R.function\n    def other(x: R.Tensor((2, 3), \"float32\"), "
                           "w1: R.Tensor((3, 4), \"float32\"), w2: R.Tensor((4,), \"float32\")):\n"
                           "        R.func_attr({\"num_input\": 1})\n        with R.dataflow():\n"
                           "            wt = R.permute_dims(R.permute_dims(w1))\n            y = R.matmul(x, wt)\n"
                           "            R.output(y)\n        return y\n"))
    out = LiftTransformParams(shared_transform=True)(two)
    assert sorted(out) == ["main", "other", "transform_params"]
    with pytest.raises(RelaxError):
        LiftTransformParams(shared_transform=["nope"])(two)
    with pytest.raises(RelaxError):
        LiftTransformParams(shared_transform=3)(two)


def test_consume_params_config():
    with PassContext(config={"relax.lift_transform_params.consume_params": True}):
        out = LiftTransformParams()(_mod(TWO))
    calls = [b.value for b in out["main_transform_params"].body.blocks[0].bindings if isinstance(b.value, rx.Call)]
    assert any(isinstance(c.args[0], rx.ExternFunc) and c.args[0].global_symbol == "vm.builtin.tuple_reset_item"
               for c in calls if c.args)


def test_bundle_model_params():
    out = BundleModelParams()(_mod(TWO))
    f = out["main"]
    assert len(f.params) == 2 and f.params[1].name_hint == "model_params"
    x, w1, w2 = np.ones((2, 3), "float32"), np.ones((3, 4), "float32"), np.ones((4,), "float32")
    np.testing.assert_allclose(relax_ref.evaluate(out, "main", x, (w1, w2)),
                               relax_ref.evaluate(_mod(TWO), "main", x, w1, w2))


# ---------------------------------------------------------------------------------------------------
# Properties: weights = the second half of main's parameters
# ---------------------------------------------------------------------------------------------------


def _with_num_input(mod: IRModule):
    f = mod["main"]
    k = (len(f.params) + 1) // 2
    attrs = dict(f.attrs)
    attrs["num_input"] = k
    g = rx.Function(f.params, f.body, f.ret_struct_info, f.is_pure, attrs=attrs)
    return IRModule({gv: (g if gv.name_hint == "main" else h) for gv, h in mod.functions_items()},
                    mod.attrs, mod.global_infos), k


def _caller(mod: IRModule, orig: rx.Function, k: int, body_fn) -> IRModule:
    """A new public ``main`` with the original signature whose body ``body_fn(params)`` builds."""
    params = tuple(rx.Var(name_hint=p.name_hint, struct_info=p.struct_info) for p in orig.params)
    items = {}
    for gv, f in mod.functions_items():
        if gv.name_hint == "main":
            attrs = {a: b for a, b in f.attrs.items() if a not in ("global_symbol", "num_input")}
            items[rx.GlobalVar("main_inner")] = rx.Function(f.params, f.body, f.ret_struct_info, f.is_pure,
                                                            attrs=attrs)
        else:
            items[gv] = f
    inner = next(gv for gv in items if gv.name_hint == "main_inner")
    bindings, result = body_fn(params, inner, {gv.name_hint: gv for gv in items})
    caller = rx.Function(params, rx.SeqExpr((rx.BindingBlock(tuple(bindings)),), result), None, orig.is_pure,
                         attrs={"global_symbol": "main"})
    items[rx.GlobalVar("main")] = copy_function(caller)      # its own symbolic variables
    return normalize_module(IRModule(items, mod.attrs, mod.global_infos), script_annotations=False)


@module_pass
def lift_then_call(mod):
    mod, k = _with_num_input(mod)
    orig = mod["main"]
    out = LiftTransformParams()(mod)

    def body(params, inner, gvs):
        t = rx.Var(name_hint="t")
        bs = [rx.VarBinding(t, rx.Call(gvs["main_transform_params"], (rx.Tuple(params[k:]),)))]
        n = len(out["main_transform_params"].ret_struct_info.fields)
        r = rx.Var(name_hint="r")
        bs.append(rx.VarBinding(r, rx.Call(inner, tuple(params[:k]) + tuple(rx.TupleGetItem(t, i) for i in range(n)))))
        return bs, r

    return _caller(out, orig, k, body)


@module_pass
def bundle_then_call(mod):
    mod, k = _with_num_input(mod)
    orig = mod["main"]
    out = BundleModelParams()(mod)

    def body(params, inner, gvs):
        r = rx.Var(name_hint="r")
        return [rx.VarBinding(r, rx.Call(inner, tuple(params[:k]) + (rx.Tuple(params[k:]),)))], r

    return _caller(out, orig, k, body)


@pytest.mark.parametrize("pass_", [lift_then_call, bundle_then_call], ids=["lift", "bundle"])
def test_preserves_meaning(pass_):
    check_pass(pass_, config=GenConfig(), max_examples=15)
