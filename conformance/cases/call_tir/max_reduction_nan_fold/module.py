from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func(s_tir=True)
    def row_max(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i, j in T.grid(n, m):
            with T.sblock("max"):
                vi, vj = T.axis.remap("SR", [i, j])
                with T.init():
                    B[vi] = T.float32(-3.4028234663852886e38)
                B[vi] = T.max(B[vi], A[vi, vj])

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("n",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.row_max, (x,), out_sinfo=R.Tensor((n,), "float32"))
        return y
