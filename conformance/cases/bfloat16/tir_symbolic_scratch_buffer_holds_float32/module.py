from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "bfloat16")
        B = T.match_buffer(b, (n,), "bfloat16")
        C = T.match_buffer(c, (n,), "bfloat16")
        S = T.alloc_buffer((n,), "bfloat16")
        for i in range(n):
            S[i] = A[i] * B[i]
        for i in range(n):
            C[i] = S[i] + A[i] * A[i]

    @R.function
    def main(a: R.Tensor(("n",), "bfloat16"), b: R.Tensor(("n",), "bfloat16")) -> R.Tensor(("n",), "bfloat16"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.k, (a, b), out_sinfo=R.Tensor((n,), "bfloat16"))
        return y
