from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def calls(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n,), "int32")
        for i in range(n):
            B[i] = T.exp(A[i]) * T.float32(0.5) + T.sqrt(T.fabs(A[i])) - T.tanh(A[i])
            C[i] = T.abs(T.Cast("int32", i) - T.int32(3)) * T.int32(2)

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "int32")):
        n = T.int64()
        cls = Module
        t = R.call_tir(cls.calls, (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n,), "int32")])
        return t
