from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(A: T.Buffer((T.int64(2), T.int64(3)), "float32"), B: T.Buffer((T.int64(2), T.int64(3)), "float32")):
        Bflat = T.Buffer((T.int64(6),), "float32", data=B.data)
        for i in range(T.int64(6)):
            Bflat[i] = T.float32(0)
        for i, j in T.grid(T.int64(2), T.int64(3)):
            B[i, j] = A[i, j] + Bflat[i * T.int64(3) + j] + T.float32(1)

    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((2, 3), "float32"):
        cls = Module
        y = R.call_tir(cls.fill, (x,), out_sinfo=R.Tensor((2, 3), "float32"))
        return y
