from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(3),), "int32"), B: T.Buffer((T.int64(3),), "int32")):
        for i in range(T.int64(3)):
            B[i] = A[i] + (T.int32(2147483647) + T.int32(1))

    @R.function
    def main(a: R.Tensor((3,), "int32")) -> R.Tensor((3,), "int32"):
        cls = Module
        r = R.call_tir(cls.k, (a,), out_sinfo=R.Tensor((3,), "int32"))
        return r
