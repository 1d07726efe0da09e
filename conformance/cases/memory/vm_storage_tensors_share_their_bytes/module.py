from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(a: T.handle, b: T.handle):
        n = T.int64()
        A = T.match_buffer(a, (n,), "int32")
        B = T.match_buffer(b, (n,), "int32")
        for i in range(n):
            B[i] = A[i] * T.int32(3)

    @R.function(pure=False)
    def main(x: R.Tensor(("n",), "int32")) -> R.Tuple(R.Tensor(("n",), "int32"), R.Tensor(("n",), "int32")):
        n = T.int64()
        cls = Module
        s = R.vm.alloc_storage(R.shape([n * 4]), R.prim_value(0), R.dtype("uint8"))
        t = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
        u = R.vm.alloc_tensor(s, R.prim_value(0), R.shape([n]), R.dtype("int32"))
        cls.fill(x, t)
        k = R.vm.kill_object(s)
        r = (t, u)
        return r
