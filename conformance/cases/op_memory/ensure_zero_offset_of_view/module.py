from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((8,), "int16")):
        v = R.memory.view(x, R.shape([2]), R.dtype("int16"), R.prim_value(T.int64(6)))
        e = R.memory.ensure_zero_offset(v)
        o = R.inspect.tensor_byte_offset(v)
        z = R.inspect.tensor_byte_offset(e)
        y = (e, o, z)
        return y
