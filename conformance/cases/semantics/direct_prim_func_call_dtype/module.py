from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(3),), "float32"), B: T.Buffer((T.int64(3),), "float32")):
        for i in range(T.int64(3)):
            B[i] = A[i]

    @R.function(pure=False)
    def main(x: R.Tensor((3,), "int32"), y: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        u = cls.k(x, y)
        return y
