from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def swap_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            A[i] = A[i] + B[i]
            B[i] = A[i] - B[i]
            A[i] = A[i] - B[i]

    @R.function
    def main(x: R.Tensor(("n",), "int32"), y: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int32"), R.Tensor(("n",), "int32")):
        n = T.int64()
        cls = Module
        t = R.call_tir_inplace(cls.swap_into, (x, y), inplace_indices=[1, 0], out_sinfo=[R.Tensor((n,), "int32"), R.Tensor((n,), "int32")])
        return t
