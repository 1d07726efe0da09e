from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def split_sign(a: T.handle, p: T.handle, q: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        P = T.match_buffer(p, (n,), "float32")
        Q = T.match_buffer(q, (n,), "float32")
        for i in range(n):
            P[i] = T.max(A[i], T.float32(0))
            Q[i] = T.min(A[i], T.float32(0))

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        y = R.call_tir(cls.split_sign, (x,), out_sinfo=[R.Tensor((n,), "float32"), R.Tensor((n,), "float32")])
        return y
