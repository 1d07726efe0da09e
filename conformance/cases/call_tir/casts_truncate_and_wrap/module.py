from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def convert(A: T.Buffer((T.int64(6),), "float32"), B: T.Buffer((T.int64(6),), "int32"), C: T.Buffer((T.int64(6),), "int8")):
        for i in range(T.int64(6)):
            B[i] = T.Cast("int32", A[i])
            C[i] = T.Cast("int8", B[i] + B[i])

    @R.function
    def main(x: R.Tensor((6,), "float32")) -> R.Tuple(R.Tensor((6,), "int32"), R.Tensor((6,), "int8")):
        cls = Module
        y = R.call_tir(cls.convert, (x,), out_sinfo=[R.Tensor((6,), "int32"), R.Tensor((6,), "int8")])
        return y
