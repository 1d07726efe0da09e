from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def prefix_sum(A: T.Buffer((T.int64(5),), "int32"), B: T.Buffer((T.int64(5),), "int32")):
        acc = T.alloc_buffer((T.int64(1),), "int32")
        acc[0] = 0
        for i in range(T.int64(5)):
            acc[0] = acc[0] + A[i]
            B[i] = acc[0]

    @R.function
    def main(x: R.Tensor((5,), "int32")) -> R.Tensor((5,), "int32"):
        cls = Module
        y = R.call_tir(cls.prefix_sum, (x,), out_sinfo=R.Tensor((5,), "int32"))
        return y
