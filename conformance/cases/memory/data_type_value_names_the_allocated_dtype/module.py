from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(b: T.handle):
        n = T.int64()
        B = T.match_buffer(b, (n,), "int16")
        for i in range(n):
            B[i] = T.Cast("int16", i) * T.int16(-7)

    @R.function(pure=False)
    def main(s: R.Shape(["n"])) -> R.Tensor(("n",), "int16"):
        n = T.int64()
        cls = Module
        t = R.builtin.alloc_tensor(R.shape([n]), R.dtype("int16"), R.prim_value(0), R.str("global"))
        cls.fill(t)
        return t
