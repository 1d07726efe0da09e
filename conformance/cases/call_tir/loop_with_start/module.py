from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def window(A: T.Buffer((T.int64(6),), "int32"), B: T.Buffer((T.int64(6),), "int32")):
        for i in range(T.int64(6)):
            B[i] = 0
        for i in T.serial(T.int64(2), T.int64(5)):
            B[i] = A[i] * 10

    @R.function
    def main(x: R.Tensor((6,), "int32")) -> R.Tensor((6,), "int32"):
        cls = Module
        y = R.call_tir(cls.window, (x,), out_sinfo=R.Tensor((6,), "int32"))
        return y
