from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(qkv5: R.Tensor((8, 8, 8), "float32"), qkv7: R.Tensor((8, 8, 8), "float32"), qkv12: R.Tensor((2, 8, 8), "float32"), qkv14: R.Tensor((2, 8, 8), "float32")) -> R.Tuple(R.Tensor((8,), "int32"), R.Tensor((8, 4, 8), "float32"), R.Tensor((8, 4, 8), "float32"), R.Tensor((2,), "int32"), R.Tensor((2, 4, 8), "float32"), R.Tensor((2, 4, 8), "float32"), R.Tensor((2, 3, 2, 8), "float32"), R.Tensor((2, 3, 2, 8), "float32")):
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(0.5), R.prim_value(500.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(3), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(7), sinfo_args=R.Object)
        _3 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([7, 3]), R.shape([3, 5]), sinfo_args=R.Object)
        pos4 = R.call_packed("vm.builtin.attention_kv_cache_get_query_positions", c, sinfo_args=R.Tensor((8,), "int32"))
        o6 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv5), out_sinfo=R.Tensor((8, 4, 8), "float32"))
        o8 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv7), out_sinfo=R.Tensor((8, 4, 8), "float32"))
        _9 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        _10 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([3, 7]), R.shape([1, 1]), sinfo_args=R.Object)
        pos11 = R.call_packed("vm.builtin.attention_kv_cache_get_query_positions", c, sinfo_args=R.Tensor((2,), "int32"))
        o13 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv12), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        o15 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv14), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        _16 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        kv17 = R.call_dps_packed("vm.builtin.attention_kv_cache_debug_get_kv", (c, R.prim_value(7), R.prim_value(1), R.prim_value(4)), out_sinfo=[R.Tensor((2, 3, 2, 8), "float32"), R.Tensor((2, 3, 2, 8), "float32")])
        kv17_0 = kv17[0]
        kv17_1 = kv17[1]
        r = (pos4, o6, o8, pos11, o13, o15, kv17_0, kv17_1,)
        return r
