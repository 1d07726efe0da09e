from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("k", 3), "float32"), y: R.Tensor((1, 3), "float32")) -> R.Tensor(ndim=2, dtype="float32"):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([2, 3]), "float32"), R.shape([2, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c, x, R.prim_value(6),
                                   inplace_indices=[0], sinfo_args=R.Object())
        c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c1, y, R.prim_value(4),
                                   inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
        return v
