from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def weighted(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            with T.sblock("row"):
                vi = T.axis.spatial(n, i)
                T.reads(A[vi, 0:m])
                T.writes(B[vi])
                W = T.match_buffer(A[vi, 0:m], (m,), "float32", offset_factor=1)
                B[vi] = T.float32(0)
                for j in range(m):
                    B[vi] = B[vi] + W[j] * T.Cast("float32", j + 1)

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.weighted, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
