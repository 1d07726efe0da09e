from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", "m"), "float32")) -> R.Tensor(("m", "n"), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 3, "m": 2}})
        y = R.permute_dims(x, axes=[1, 0])
        return y
