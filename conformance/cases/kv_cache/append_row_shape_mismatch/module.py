from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 4), "float32")) -> R.Object:
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), "float32"), R.shape([4, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, a, inplace_indices=[0], sinfo_args=R.Object())
        return c1
