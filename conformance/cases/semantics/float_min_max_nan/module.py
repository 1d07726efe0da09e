from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def minmax(A: T.Buffer((T.int64(4),), "float32"), B: T.Buffer((T.int64(4),), "float32"),
               C: T.Buffer((T.int64(4),), "float32"), D: T.Buffer((T.int64(4),), "float32")):
        for i in range(T.int64(4)):
            C[i] = T.min(A[i], B[i])
            D[i] = T.max(A[i], B[i])

    @R.function
    def main(a: R.Tensor((4,), "float32"), b: R.Tensor((4,), "float32")) -> R.Tuple(R.Tensor((4,), "float32"), R.Tensor((4,), "float32")):
        cls = Module
        r = R.call_tir(cls.minmax, (a, b), out_sinfo=[R.Tensor((4,), "float32"), R.Tensor((4,), "float32")])
        return r
