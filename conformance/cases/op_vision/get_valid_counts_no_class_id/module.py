from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((2, 6, 5), "float32")) -> R.Tuple(R.Tensor((2,), "int32"), R.Tensor((2, 6, 5), "float32"), R.Tensor((2, 6), "int32")):
        y = R.vision.get_valid_counts(d, 0.2, id_index=-1, score_index=0)
        return y
