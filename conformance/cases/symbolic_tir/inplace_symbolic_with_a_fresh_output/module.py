from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def split_into(a: T.handle, b: T.handle, c: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        C = T.match_buffer(c, (n * 2,), "float32")
        for i in range(n):
            C[i] = A[i] + B[i]
            C[i + n] = A[i] - B[i]
            A[i] = A[i] * T.float32(2)

    @R.function
    def main(x: R.Tensor(("n",), "float32"), y: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n * 2",), "float32"), R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        t = R.call_tir_inplace(cls.split_into, (x, y), inplace_indices=[0, -1], out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n * 2,), "float32")])
        a = t[0]
        b = t[1]
        r = (a, b, y)
        return r
