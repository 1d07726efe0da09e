from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2, 3), "float32")):
        y = R.layout_transform(x, index_map=T.index_map(lambda i, j: (j, i), index_dtype="int64"))
        return y
