from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def square_plus(A: T.Buffer((T.int64(5),), "float32"), B: T.Buffer((T.int64(5),), "float32")):
        for i in range(T.int64(5)):
            t = A[i] + T.float32(1)
            B[i] = t * t

    @R.function
    def main(x: R.Tensor((5,), "float32")) -> R.Tensor((5,), "float32"):
        cls = Module
        y = R.call_tir(cls.square_plus, (x,), out_sinfo=R.Tensor((5,), "float32"))
        return y
