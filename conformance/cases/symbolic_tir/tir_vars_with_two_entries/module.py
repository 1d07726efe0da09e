from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def window(a: T.handle, b: T.handle, lo: T.int64, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        for i in range(m):
            B[i] = A[lo + i]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["lo", "m"])) -> R.Tensor(("m",), "float32"):
        lo = T.int64()
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.window, (x,), out_sinfo=R.Tensor((m,), "float32"), tir_vars=R.shape([lo, m]))
        return y
