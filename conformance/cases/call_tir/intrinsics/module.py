from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def math(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (T.int64(4), n), "float32")
        for i in range(n):
            B[0, i] = T.exp(A[i])
            B[1, i] = T.sqrt(T.fabs(A[i]))
            B[2, i] = T.Select(A[i] > T.float32(0), A[i], A[i] * T.float32(0.5))
            B[3, i] = T.tanh(A[i])

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4, "n"), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.math, (x,), out_sinfo=R.Tensor((4, n), "float32"))
        return y
