from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def row_min(A: T.Buffer((T.int64(4), T.int64(3)), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i, j in T.grid(T.int64(4), T.int64(3)):
            with T.sblock("min"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(1)
                B[vi] = T.min(A[vi, vj], B[vi])

    @R.function
    def main(x: R.Tensor((4, 3), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.row_min, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
