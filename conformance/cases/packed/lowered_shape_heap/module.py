from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(private=True)
    def twice(H: T.Buffer((T.int64(3),), "int64")):
        H[T.int64(2)] = H[T.int64(0)] * T.int64(2)

    @R.function(pure=False)
    def main(x: R.Tensor, k: R.Prim("int64"), y: R.Tensor):
        cls = Module
        heap = R.call_builtin_with_ctx("vm.builtin.alloc_shape_heap", (R.prim_value(3),),
                                       sinfo_args=(R.Tensor(dtype="int64", ndim=1),))
        R.call_packed("vm.builtin.check_tensor_info", x, R.prim_value(2), R.dtype("float32"), R.str("param x"),
                      sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_prim_value_info", k, R.dtype("int64"), R.str("param k"),
                      sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.check_tensor_info", y, R.prim_value(-1), R.str("param y"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", x, heap, R.prim_value(2), R.prim_value(1), R.prim_value(0),
                      R.prim_value(0), R.prim_value(4), R.str("param x"), sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_prim_value", k, heap, R.prim_value(1), R.prim_value(1), R.str("param k"),
                      sinfo_args=(R.Tuple,))
        R.call_packed("vm.builtin.match_shape", y, heap, R.prim_value(2), R.prim_value(3), R.prim_value(0),
                      R.prim_value(2), R.prim_value(0), R.str("param y"), sinfo_args=(R.Tuple,))
        cls.twice(heap)
        s = R.call_packed("vm.builtin.make_shape", heap, R.prim_value(3), R.prim_value(1), R.prim_value(0),
                          R.prim_value(1), R.prim_value(2), R.prim_value(0), R.prim_value(7),
                          sinfo_args=(R.Shape(ndim=3),))
        p = R.call_packed("vm.builtin.make_prim_value", heap, R.prim_value(1), R.prim_value(1),
                          sinfo_args=(R.Prim("int64"),))
        return (s, p, heap)
