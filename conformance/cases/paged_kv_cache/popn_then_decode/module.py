from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(qkv3: R.Tensor((6, 8, 8), "float32"), qkv5: R.Tensor((6, 8, 8), "float32"), qkv11: R.Tensor((2, 8, 8), "float32"), qkv13: R.Tensor((2, 8, 8), "float32")) -> R.Tuple(R.Tensor((6, 4, 8), "float32"), R.Tensor((6, 4, 8), "float32"), R.Prim("int64"), R.Tensor((2, 4, 8), "float32"), R.Tensor((2, 4, 8), "float32"), R.Tensor((2, 5, 2, 8), "float32"), R.Tensor((2, 5, 2, 8), "float32")):
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(1.0), R.prim_value(10000.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([6]), sinfo_args=R.Object)
        o4 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv3), out_sinfo=R.Tensor((6, 4, 8), "float32"))
        o6 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv5), out_sinfo=R.Tensor((6, 4, 8), "float32"))
        _7 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        _8 = R.call_packed("vm.builtin.kv_state_popn", c, R.prim_value(0), R.prim_value(3), sinfo_args=R.Object)
        free9 = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        _10 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([2]), sinfo_args=R.Object)
        o12 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv11), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        o14 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv13), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        _15 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        kv16 = R.call_dps_packed("vm.builtin.attention_kv_cache_debug_get_kv", (c, R.prim_value(0), R.prim_value(0), R.prim_value(5)), out_sinfo=[R.Tensor((2, 5, 2, 8), "float32"), R.Tensor((2, 5, 2, 8), "float32")])
        kv16_0 = kv16[0]
        kv16_1 = kv16[1]
        r = (o4, o6, free9, o12, o14, kv16_0, kv16_1,)
        return r
