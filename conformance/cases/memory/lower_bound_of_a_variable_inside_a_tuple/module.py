from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(t: R.Tuple(R.Tensor(("n",), "float32"), R.Tuple(R.Shape(["k"])))) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_lower_bound": {"k": 1}})
        x = t[0]
        y = R.add(x, x)
        return y
