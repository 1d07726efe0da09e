from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def first(A: T.Buffer((T.int64(2),), "int32"), k: T.int64, B: T.Buffer((T.int64(1),), "int32")):
        B[T.int64(0)] = A[k] + T.int32(7) // A[T.int64(1)]

    @R.function
    def main(x: R.Tensor((2,), "int32"), p: R.Prim(value="k")) -> R.Tensor((1,), "int32"):
        k = T.int64()
        cls = Module
        y = R.call_tir(cls.first, (x, p), out_sinfo=R.Tensor((1,), "int32"))
        return y
