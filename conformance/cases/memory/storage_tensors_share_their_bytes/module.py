from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.float32(1)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n",), "float32")):
        n = T.int64()
        cls = Module
        s = R.memory.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.str("global"), R.dtype("uint8"))
        t1 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        t2 = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("float32"))
        cls.fill(x, t1)
        r = (t1, t2)
        return r
