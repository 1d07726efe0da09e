from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def via_scratch(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        L = T.alloc_buffer((T.int64(4),), "float32", scope="local")
        S = T.alloc_buffer((T.int64(4),), "float32", scope="shared")
        for i in range(T.int64(4)):
            L[i] = A[i] * T.float32(3)
        for i in range(T.int64(4)):
            S[T.int64(3) - i] = L[i]
        for i in range(T.int64(4)):
            B[i] = S[i]

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.via_scratch, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
