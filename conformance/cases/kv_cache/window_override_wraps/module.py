from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 3), "float32"), y: R.Tensor(("n", 3), "float32")) -> R.Tensor((4, 3), "float32"):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([2, 3]), "float32"), R.shape([2, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c, x, R.prim_value(4),
                                   inplace_indices=[0], sinfo_args=R.Object())
        c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_window_override", c1, y, R.prim_value(4),
                                   inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, R.shape([4, 3]),
                               sinfo_args=R.Tensor((4, 3), "float32"))
        return v
