from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fdiv(A: T.Buffer((T.int64(4),), "int32"), B: T.Buffer((T.int64(4),), "int32"), C: T.Buffer((T.int64(4),), "int32")):
        for i in range(T.int64(4)):
            C[i] = A[i] // B[i]

    @R.function
    def main(x: R.Tensor((4,), "int32"), y: R.Tensor((4,), "int32")) -> R.Tensor((4,), "int32"):
        cls = Module
        z = R.call_tir(cls.fdiv, (x, y), out_sinfo=R.Tensor((4,), "int32"))
        return z
