from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def copy4(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.copy4, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
