from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n * 2",), "float32"):
        @R.function
        def dup(v: R.Tensor(("k",), "float32")) -> R.Tensor(("k * 2",), "float32"):
            R.func_attr({"tir_var_upper_bound": {"k": 4}})
            w = R.concat((v, v), axis=0)
            return w
        y = dup(x)
        return y
