from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def matmul(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        k = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, k), "float32")
        B = T.match_buffer(b, (k, m), "float32")
        C = T.match_buffer(c, (n, m), "float32")
        for i, j, r in T.grid(n, m, k):
            with T.sblock("matmul"):
                vi, vj, vr = T.axis.remap("SSR", [i, j, r])
                with T.init():
                    C[vi, vj] = T.float32(0)
                C[vi, vj] = C[vi, vj] + A[vi, vr] * B[vr, vj]

    @R.function
    def main(x: R.Tensor(("n", "k"), "float32"), w: R.Tensor(("k", "m"), "float32")) -> R.Tensor(("n", "m"), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.matmul, (x, w), out_sinfo=R.Tensor((n, m), "float32"))
        return y
