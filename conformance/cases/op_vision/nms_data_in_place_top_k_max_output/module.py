from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(d: R.Tensor((3, 8, 6), "float32"), vc: R.Tensor((3,), "int32"), ind: R.Tensor((3, 8), "int32")) -> R.Tensor((3, 8, 6), "float32"):
        y = R.vision.non_max_suppression(d, vc, ind, max_output_size=2, top_k=4, id_index=-1, return_indices=False)
        return y
