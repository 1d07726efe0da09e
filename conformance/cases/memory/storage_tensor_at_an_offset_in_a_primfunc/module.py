from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "float32")
        B = T.match_buffer(b, (n,), "float32")
        for i in range(n):
            B[i] = A[i] + T.float32(0.5)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "float32")) -> R.Tuple(R.Tensor(("n",), "float32"), R.Tensor(("n + 1",), "float32")):
        n = T.int64()
        cls = Module
        s = R.memory.alloc_storage(R.shape([n * 4 + 4]), R.prim_value(0), R.str("global"), R.dtype("float32"))
        z = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([1]), R.dtype("float32"))
        u = R.call_packed("conformance.add_dps", R.const([1.5], "float32"), R.const([1.0], "float32"), z, sinfo_args=R.Object)
        t = R.memory.alloc_tensor(s, R.prim_value(4), R.shape([n]), R.dtype("float32"))
        cls.fill(x, t)
        w = R.memory.alloc_tensor(s, R.prim_value(0), R.shape([n + 1]), R.dtype("float32"))
        r = (t, w)
        return r
