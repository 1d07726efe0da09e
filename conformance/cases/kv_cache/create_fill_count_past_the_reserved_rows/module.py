from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((2, 3), "float32"), b: R.Tensor((1, 3), "float32"), k: R.Prim("int64")) -> R.Tensor(ndim=2, dtype="float32"):
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", a, R.shape([4, 3]), k,
                               sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0], sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, sinfo_args=R.Tensor(ndim=2, dtype="float32"))
        return v
