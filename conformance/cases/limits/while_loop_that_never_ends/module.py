from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(A: T.Buffer((T.int64(1),), "int32"), B: T.Buffer((T.int64(1),), "int32")):
        v = T.alloc_buffer((T.int64(1),), "int32")
        v[0] = A[0]
        while v[0] > 0:
            v[0] = v[0] + 1
            v[0] = v[0] - 1
        B[0] = v[0]

    @R.function
    def main(x: R.Tensor((1,), "int32")) -> R.Tensor((1,), "int32"):
        cls = Module
        y = R.call_tir(cls.k, (x,), out_sinfo=R.Tensor((1,), "int32"))
        return y
