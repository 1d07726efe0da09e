from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3, 6), "float32")) -> R.Tensor((1, 6), "int64"):
        y = R.topk(x, 1, axis=0, ret_type="indices", dtype="int64")
        return y
