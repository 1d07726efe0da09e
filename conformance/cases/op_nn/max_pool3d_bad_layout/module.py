from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((1, 2, 3, 4, 5), "float32")):
        y = R.nn.max_pool3d(x, 2, layout="NCXHW")
        return y
