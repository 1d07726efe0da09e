from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_scalar(a: T.handle, b: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int64")
        B = T.match_buffer(b, (n,), "int64")
        for i in range(n):
            B[i] = A[i] + k

    @R.function
    def main(x: R.Tensor(("n",), "int64")) -> R.Tensor(("n",), "int64"):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.add_scalar, (x,), out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([n * 10]))
        return y
