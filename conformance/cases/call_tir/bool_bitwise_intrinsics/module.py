from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def bxor(A: T.Buffer((T.int64(4),), "bool"), B: T.Buffer((T.int64(4),), "bool"), C: T.Buffer((T.int64(4),), "bool")):
        for i in range(T.int64(4)):
            C[i] = T.bitwise_xor(A[i], B[i]) | T.bitwise_not(A[i] | B[i])

    @R.function
    def main(x: R.Tensor((4,), "bool"), y: R.Tensor((4,), "bool")) -> R.Tensor((4,), "bool"):
        cls = Module
        z = R.call_tir(cls.bxor, (x, y), out_sinfo=R.Tensor((4,), "bool"))
        return z
