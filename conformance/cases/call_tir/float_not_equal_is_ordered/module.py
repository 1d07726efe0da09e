from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def ne(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"), C: T.Buffer((T.int64(4),), "bool")):
        for i in range(T.int64(4)):
            C[i] = A[i] != B[i]

    @R.function
    def main(x: R.Tensor((4,), "float32"), y: R.Tensor((4,), "float32")) -> R.Tensor((4,), "bool"):
        cls = Module
        z = R.call_tir(cls.ne, (x, y), out_sinfo=R.Tensor((4,), "bool"))
        return z
