from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(v: R.Tensor((2, 3), "float32"), w: R.Tensor("float32")):
        y = R.concat((v, w), axis=1)
        return y
