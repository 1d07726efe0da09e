from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")) -> R.Tensor((3, 2), "float32"):
        y = R.layout_transform(x, index_map=T.index_map(lambda a, b: (b, a)), pad_value=R.prim_value(T.int32(1)))
        return y
