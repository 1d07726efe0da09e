from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def scatter(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n * 2,), "float32")
        for i in range(n):
            B[i * 2] = A[i]
            B[i * 2 + 1] = A[i] * T.float32(-1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        cls = Module
        u = cls.scatter(x, y)
        return y
