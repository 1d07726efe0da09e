from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def tail(y: R.Tensor(("n",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 6}})
        z = R.negative(y)
        return z

    @R.function
    def main(x: R.Tensor(("m",), "float32")) -> R.Tensor(("m * 2",), "float32"):
        cls = Module
        d = R.concat((x, x), axis=0)
        r = cls.tail(d)
        return r
