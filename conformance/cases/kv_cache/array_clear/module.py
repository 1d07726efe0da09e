from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(a: R.Tensor((3, 3), "float32"), b: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), "float32"), R.shape([4, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, a, inplace_indices=[0], sinfo_args=R.Object())
        _ = R.call_packed("vm.builtin.attention_kv_cache_array_clear", (c1,), sinfo_args=R.Object)
        c2 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c1, b, inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c2, sinfo_args=R.Tensor((2, 3), "float32"))
        return v
