from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def shl(A: T.Buffer((T.int64(4),), "int32"), B: T.Buffer((T.int64(4),), "int32"), C: T.Buffer((T.int64(4),), "int32")):
        for i in range(T.int64(4)):
            C[i] = T.shift_left(A[i], B[i])

    @R.function
    def main(x: R.Tensor((4,), "int32"), y: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int32"):
        cls = Module
        z = R.call_tir(cls.shl, (x, y), out_sinfo=R.Tensor((4,), "int32"))
        return z
