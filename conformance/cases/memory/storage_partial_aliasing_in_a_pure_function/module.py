from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def copy_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            A[i] = B[i]

    @T.prim_func
    def add_into(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            A[i] = A[i] + B[i]

    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n - 2",), "float32")):
        n = T.int64()
        cls = Module
        s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        t2 = R.memory.alloc_tensor(s, R.prim_value(8), R.shape([n - 2]), R.dtype("float32"))
        u = R.call_tir_inplace(cls.copy_into, (t1, x), inplace_indices=[0], out_sinfo=R.Tensor((n,), "float32"))
        v = R.call_tir_inplace(cls.add_into, (t2, t2), inplace_indices=[0], out_sinfo=R.Tensor((n - 2,), "float32"))
        r = (u, v)
        return r
