from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def copy(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), s: R.Shape(["m"])) -> R.Tensor(("m",), "float32"):
        m = T.int64()
        cls = Module
        y = R.call_tir(cls.copy, (x,), out_sinfo=R.Tensor((m,), "float32"))
        return y
