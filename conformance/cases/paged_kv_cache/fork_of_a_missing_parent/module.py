from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main() -> R.Object:
        c = R.call_pure_packed("vm.builtin.paged_attention_kv_cache_create", R.shape([4, 32, 16, 4, 0]), R.shape([0, 2]), R.prim_value(4), R.prim_value(2), R.prim_value(8), R.prim_value(8), R.shape([0, 0]), R.prim_value(0), R.prim_value(1), R.prim_value(1.0), R.prim_value(10000.0), R.prim_value(0), R.zeros(R.shape([]), "float32"), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), R.prim_value(0), sinfo_args=R.Object)
        _1 = R.call_packed("vm.builtin.kv_state_add_sequence", c, R.prim_value(0), sinfo_args=R.Object)
        _2 = R.call_packed("vm.builtin.kv_state_fork_sequence", c, R.prim_value(2), R.prim_value(1), R.prim_value(-1), sinfo_args=R.Object)
        return c
