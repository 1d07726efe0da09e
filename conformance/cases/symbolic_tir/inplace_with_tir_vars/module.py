from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_k(a: T.handle, k: T.int64):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int64")
        for i in range(n):
            A[i] = A[i] + k * T.int64(3)

    @R.function
    def main(x: R.Tensor(("n",), "int64"), p: R.Prim(value="k")) -> R.Tensor(("n",), "int64"):
        n = T.int64()
        k = T.int64()
        cls = Module
        z = R.call_tir_inplace(cls.add_k, (x,), inplace_indices=[0], out_sinfo=R.Tensor((n,), "int64"), tir_vars=R.shape([k + 1]))
        return z
