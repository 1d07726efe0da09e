from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def reverse(a: T.handle, b: T.handle):
        k = T.int64()
        A = T.match_buffer(a, (k,), "int32")
        B = T.match_buffer(b, (k,), "int32")
        for i in range(k):
            B[i] = A[k - 1 - i]

    @R.function
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(ndim=1, dtype="int32"):
        k = T.int64()
        cls = Module
        u = R.unique(x)
        v = R.match_cast(u, R.Tensor((k,), "int32"))
        r = R.call_tir(cls.reverse, (v,), out_sinfo=R.Tensor((k,), "int32"))
        return r
