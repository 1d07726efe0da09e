from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "float32"), s: R.Shape(["k"])) -> R.Tensor(ndim=2, dtype="float32"):
        k = T.int64()
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), "float32"), R.shape([4, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, a, inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([k, 3]),
                               sinfo_args=R.Tensor((k, 3), "float32"))
        return v
