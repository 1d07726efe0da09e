from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((1, 3), "float32")) -> R.Tensor((3, 3), "float32"):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", a, R.shape([1, 3]), R.prim_value(-1),
                               sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, sinfo_args=R.Tensor((3, 3), "float32"))
        return v
