from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def cmp(A: T.Buffer((T.int64(4),), "uint8"), B: T.Buffer((T.int64(4),), "int8"),
            C: T.Buffer((T.int64(4),), "bool"), D: T.Buffer((T.int64(4),), "bool")):
        for i in range(T.int64(4)):
            C[i] = A[i] > T.uint8(100)
            D[i] = B[i] > T.int8(100)

    @R.function
    def main(a: R.Tensor((4,), "uint8"), b: R.Tensor((4,), "int8")) -> R.Tuple(R.Tensor((4,), "bool"), R.Tensor((4,), "bool")):
        cls = Module
        r = R.call_tir(cls.cmp, (a, b), out_sinfo=[R.Tensor((4,), "bool"), R.Tensor((4,), "bool")])
        return r
