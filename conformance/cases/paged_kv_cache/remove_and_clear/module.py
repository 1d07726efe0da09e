from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(qkv4: R.Tensor((9, 8, 8), "float32"), qkv6: R.Tensor((9, 8, 8), "float32"), qkv16: R.Tensor((2, 8, 8), "float32"), qkv18: R.Tensor((2, 8, 8), "float32")) -> R.Tuple(R.Tensor((9, 4, 8), "float32"), R.Tensor((9, 4, 8), "float32"), R.Prim("int64"), R.Prim("int64"), R.Prim("int64"), R.Tensor((2, 4, 8), "float32"), R.Tensor((2, 4, 8), "float32"), R.Prim("int64"), R.Prim("bool")):
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(1.0), R.prim_value(10000.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(1), sinfo_args=R.Object)
        _3 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0, 1]), R.shape([5, 4]), sinfo_args=R.Object)
        o5 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv4), out_sinfo=R.Tensor((9, 4, 8), "float32"))
        o7 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv6), out_sinfo=R.Tensor((9, 4, 8), "float32"))
        _8 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        free9 = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        _10 = R.call_packed("vm.builtin.kv_state_remove_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        free11 = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        _12 = R.call_packed("vm.builtin.kv_state_clear", c, sinfo_args=R.Object)
        free13 = R.call_packed("vm.builtin.attention_kv_cache_get_num_available_pages", c, sinfo_args=R.Prim("int64"))
        _14 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _15 = R.call_packed("vm.builtin.kv_state_begin_forward", c, R.shape([0]), R.shape([2]), sinfo_args=R.Object)
        o17 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(0), R.prim_value(0.35355339059327373), qkv16), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        o19 = R.call_dps_packed("vm.builtin.attention_kv_cache_attention_with_fused_qkv", (c, R.prim_value(1), R.prim_value(0.35355339059327373), qkv18), out_sinfo=R.Tensor((2, 4, 8), "float32"))
        _20 = R.call_packed("vm.builtin.kv_state_end_forward", c, sinfo_args=R.Object)
        q21 = R.call_packed("vm.builtin.attention_kv_cache_get_total_sequence_length", c, sinfo_args=R.Prim("int64"))
        q22 = R.call_packed("vm.builtin.attention_kv_cache_empty", c, sinfo_args=R.Prim("bool"))
        r = (o5, o7, free9, free11, free13, o17, o19, q21, q22,)
        return r
