from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def pair(a: T.handle, b: T.handle, c: T.handle, d: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        C = T.match_buffer(c, (m, n), "float32")
        D = T.match_buffer(d, (n + m,), "float32")
        for i, j in T.grid(m, n):
            C[i, j] = A[j] * B[i]
        for i in range(n):
            D[i] = A[i]
        for j in range(m):
            D[n + j] = B[j]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tuple(R.Tensor(("m", "n"), "float32"), R.Tensor(("n + m",), "float32")):
        n = T.int64()
        m = T.int64()
        cls = Module
        t = R.call_tir(cls.pair, (x, y), out_sinfo=[R.Tensor((m, n), "float32"), R.Tensor((n + m,), "float32")])
        return t
