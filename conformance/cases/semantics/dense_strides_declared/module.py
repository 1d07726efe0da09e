from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def transpose(a: T.handle, b: T.handle):
        n = T.int64()
        m = T.int64()
        A = T.match_buffer(a, (n, m), "float32", strides=(m, T.int64(1)), elem_offset=T.int64(0))
        B = T.match_buffer(b, (m, n), "float32")
        for i, j in T.grid(m, n):
            B[i, j] = A[j, i]

    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("m", "n"), "float32"):
        n = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.transpose, (x,), out_sinfo=R.Tensor((m, n), "float32"))
        return y
