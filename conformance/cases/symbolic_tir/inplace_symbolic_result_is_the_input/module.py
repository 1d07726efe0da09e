from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def add_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            A[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        z = R.call_tir_inplace(cls.add_into, (x, y), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
        r = (z, x)
        return r
