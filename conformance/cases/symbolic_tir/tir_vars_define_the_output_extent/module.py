from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def head(a: T.handle, b: T.handle, m: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (m,), "float32")
        for i in range(m):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.head, (x,), out_sinfo=R.Tensor((m,), "float32"), tir_vars=R.shape([m]))
        return y
