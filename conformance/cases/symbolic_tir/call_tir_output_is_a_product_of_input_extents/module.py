from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def flat(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "int32")
        B = T.match_buffer(b, (n * m,), "int32")
        for i, j in T.grid(n, m):
            B[i * m + j] = A[i, j] * T.int32(2)

    @R.function
    def main(x: R.Tensor(("n", "m"), "int32")) -> R.Tensor(("n * m",), "int32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.flat, (x,), out_sinfo=R.Tensor((n * m,), "int32"))
        return y
