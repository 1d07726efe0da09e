from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def checked(A: T.Buffer((T.int64(2),), "int32"), B: T.Buffer((T.int64(2),), "int32")):
        assert A[0] >= 0, "A[0] must be non-negative"
        for i in range(T.int64(2)):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor((2,), "int32")) -> R.Tensor((2,), "int32"):
        cls = Module
        y = R.call_tir(cls.checked, (x,), out_sinfo=R.Tensor((2,), "int32"))
        return y
