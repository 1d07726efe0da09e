from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def repeat2(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n * 2,), "float32")
        for i in range(n * 2):
            B[i] = A[i // 2]

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.repeat2, (x,), out_sinfo=R.Tensor((n * 2,), "float32"))
        return y
