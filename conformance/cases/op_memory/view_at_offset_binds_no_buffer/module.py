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
        v = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))
        u = cls.fill(v)
        y = v
        return y
