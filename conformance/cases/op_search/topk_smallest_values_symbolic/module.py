from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 5), "int32")) -> R.Tensor(("n", 3), "int32"):
        y = R.topk(x, 3, ret_type="values", largest=False)
        return y
