from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((1, 4, 3), "float32")):
        y = R.vision.get_valid_counts(d, score_index=3)
        return y
