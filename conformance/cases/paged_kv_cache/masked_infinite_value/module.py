from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(qkv3: R.Tensor((5, 8, 8), "float32"), qkv5: R.Tensor((5, 8, 8), "float32"), qkv9: R.Tensor((1, 8, 8), "float32"), qkv11: R.Tensor((1, 8, 8), "float32")) -> R.Tuple(R.Tensor((5, 4, 8), "float32"), R.Tensor((5, 4, 8), "float32"), R.Tensor((1, 4, 8), "float32"), R.Tensor((1, 4, 8), "float32")):
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(1.0), R.prim_value(10000.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([5]), sinfo_args=R.Object)
        o4 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv3), out_sinfo=R.Tensor((5, 4, 8), "float32"))
        o6 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv5), out_sinfo=R.Tensor((5, 4, 8), "float32"))
        _7 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        _8 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([1]), sinfo_args=R.Object)
        o10 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv9), out_sinfo=R.Tensor((1, 4, 8), "float32"))
        o12 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv11), out_sinfo=R.Tensor((1, 4, 8), "float32"))
        _13 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        r = (o4, o6, o10, o12,)
        return r
