from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def scale(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] * T.Cast("float32", k)

    @R.function
    def main(x: R.Tensor((8,), "float32")) -> R.Tensor((7,), "float32"):
        cls = Module
        y = R.call_tir_with_grad(cls.scale, (x,), out_sinfo=R.Tensor((7,), "float32"), te_grad_name="scale_grad", tir_vars=R.shape([2]))
        return y
