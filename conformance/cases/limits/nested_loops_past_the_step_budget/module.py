from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(1),), "int64"), B: T.Buffer((T.int64(1),), "int64")):
        B[0] = A[0]
        for i in range(T.int64(2097152)):
            for j in range(T.int64(2097152)):
                B[0] = B[0] + T.int64(1)

    @R.function
    def main(x: R.Tensor((1,), "int64")) -> R.Tensor((1,), "int64"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int64"))
        return y
