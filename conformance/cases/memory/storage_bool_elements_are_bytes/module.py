from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def mark(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "bool")
        for i in range(n):
            B[i] = A[i] > T.int32(0)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "int32")) -> R.Tensor(("n",), "uint8"):
        n = T.int64()
        cls = Module
        s = R.memory.alloc_storage(R.shape([n]), R.prim_value(0), R.str("global"), R.dtype("bool"))
        b = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("bool"))
        cls.mark(x, b)
        u = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("uint8"))
        return u
