from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def col_sum(A: T.Buffer((T.int64(3), T.int64(4)), "int32"), B: T.Buffer((T.int64(4),), "int32")):
        for j in range(T.int64(4)):
            B[j] = 0
            for i in range(T.int64(3)):
                B[j] = B[j] + A[i, j]

    @R.function
    def main(x: R.Tensor((3, 4), "int32")) -> R.Tensor((4,), "int32"):
        cls = Module
        y = R.call_tir(cls.col_sum, (x,), out_sinfo=R.Tensor((4,), "int32"))
        return y
