from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((7, 2), "int32")) -> R.Tensor((3, 2, 3), "int32"):
        y = R.layout_transform(x, index_map=T.index_map(lambda a, b: (a // 3, b, a % 3)))
        return y
