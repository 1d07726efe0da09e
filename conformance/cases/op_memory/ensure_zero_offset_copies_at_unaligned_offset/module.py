from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @T.prim_func
    def fill(A: T.Buffer((2,), "int16")):
        for i in range(2):
            A[i] = T.int16(-1)

    @R.function(pure=False)
    def main(x: R.Tensor((8,), "int16")):
        cls = Module
        b = R.add(x, R.const(0, "int16"))
        v = R.memory.view(b, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(10)))
        e = R.memory.ensure_zero_offset(v)
        u = cls.fill(e)
        y = (b, v, e)
        return y
