from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def double8(A: T.Buffer((T.int64(4),), "int8"), B: T.Buffer((T.int64(4),), "int8")):
        for i in range(T.int64(4)):
            B[i] = A[i] + A[i]

    @R.function
    def main(x: R.Tensor((4,), "int8")) -> R.Tensor((4,), "int8"):
        cls = Module
        y = R.call_tir(cls.double8, (x,), out_sinfo=R.Tensor((4,), "int8"))
        return y
