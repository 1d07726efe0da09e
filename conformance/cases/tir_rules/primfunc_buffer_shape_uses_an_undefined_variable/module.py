from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def k(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n * 2,), "float32")
        B = T.match_buffer(b, (n * 2,), "float32")
        for i in range(n * 2):
            B[i] = A[i]

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m",), "float32"):
        return x
