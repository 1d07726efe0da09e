from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @T.prim_func
    def twice_via_scratch(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32")):
        tmp = T.alloc_buffer((T.int64(4),), "float32")
        for i in range(T.int64(4)):
            with T.block("t"):
                vi = T.axis.spatial(T.int64(4), i)
                tmp[vi] = A[vi] + A[vi]
        for i in range(T.int64(4)):
            with T.block("b"):
                vi = T.axis.spatial(T.int64(4), i)
                B[vi] = tmp[vi] * T.float32(3)

    @R.function
    def main(x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        cls = Module
        y = R.call_tir(cls.twice_via_scratch, (x,), out_sinfo=R.Tensor((4,), "float32"))
        return y
