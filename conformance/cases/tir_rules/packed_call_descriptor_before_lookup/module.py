from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def shifted(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        T.call_packed("conformance.not_registered", T.tvm_stack_make_array(A.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 1), T.tvm_stack_make_array(B.data, T.tvm_stack_make_shape(n), 0, 1, T.float32(0), 0))

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.shifted, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
