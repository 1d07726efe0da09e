from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(pure=False)
    def main(t: R.Tuple(R.Tensor((2,), "float32"), R.Prim("int64")), s: R.Shape, k: R.Prim("int64"), q: R.Object):
        R.call_packed("vm.builtin.check_tuple_info", t, R.prim_value(2), R.str("param t"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_shape_info", s, R.prim_value(2), R.str("param s"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_prim_value_info", q, R.dtype("int64"), R.str("param q"),
                      sinfo_args=(R.Tuple,))
        heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(1),),
                                       sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.match_prim_value", k, heap, R.prim_value(0), R.prim_value(4), R.str("param k"),
                      sinfo_args=(R.Tuple,))
        return t[0]
