from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(64),), "bfloat16"), B: T.Buffer((T.int64(64),), "bfloat16"), C: T.Buffer((T.int64(64),), "bfloat16")):
        for i in range(T.int64(64)):
            p = A[i] * B[i]
            C[i] = p + A[i] * A[i]

    @R.function
    def main(a: R.Tensor((64,), "bfloat16"), b: R.Tensor((64,), "bfloat16")) -> R.Tensor((64,), "bfloat16"):
        cls = Module
        y = R.call_tir(cls.k, (a, b), out_sinfo=R.Tensor((64,), "bfloat16"))
        return y
