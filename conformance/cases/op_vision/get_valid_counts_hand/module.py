from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 4, 3), "float32")) -> R.Tuple(R.Tensor((1,), "int32"), R.Tensor((1, 4, 3), "float32"), R.Tensor((1, 4), "int32")):
        y = R.vision.get_valid_counts(d, 0.5)
        return y
