from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(qkv3: R.Tensor((5, 8, 8), "float32"), qkv5: R.Tensor((5, 8, 8), "float32"), qkv10: R.Tensor((1, 8, 8), "float32"), qkv12: R.Tensor((1, 8, 8), "float32")) -> R.Tuple(R.Tensor((5, 4, 8), "float32"), R.Tensor((5, 4, 8), "float32"), R.Prim("int64"), R.Tensor((1, 4, 8), "float32"), R.Tensor((1, 4, 8), "float32"), R.Tensor((2, 6, 2, 8), "float32"), R.Tensor((2, 6, 2, 8), "float32")):
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(0), R.prim_value(1.0), R.prim_value(10000.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([5]), sinfo_args=R.Object)
        o4 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv3), out_sinfo=R.Tensor((5, 4, 8), "float32"))
        o6 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv5), out_sinfo=R.Tensor((5, 4, 8), "float32"))
        _7 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        free8 = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        _9 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([1]), sinfo_args=R.Object)
        o11 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv10), out_sinfo=R.Tensor((1, 4, 8), "float32"))
        o13 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv12), out_sinfo=R.Tensor((1, 4, 8), "float32"))
        _14 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        kv15 = R.call_dps_packed("vm.builtin.attention_kv_cache_debug_get_kv", (c, R.prim_value(0), R.prim_value(0), R.prim_value(6)), out_sinfo=[R.Tensor((2, 6, 2, 8), "float32"), R.Tensor((2, 6, 2, 8), "float32")])
        kv15_0 = kv15[0]
        kv15_1 = kv15[1]
        r = (o4, o6, free8, o11, o13, kv15_0, kv15_1,)
        return r
