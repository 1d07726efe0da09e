from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def sub(A: T.Buffer((T.int64(2),), "float32"), B: T.Buffer((T.int64(2),), "float32"), C: T.Buffer((T.int64(2),), "float32")):
        for i in range(T.int64(2)):
            C[i] = A[i] - B[i]

    @R.function
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        t = (x, y)
        z = R.call_tir(cls.sub, t, out_sinfo=R.Tensor((2,), "float32"))
        return z
