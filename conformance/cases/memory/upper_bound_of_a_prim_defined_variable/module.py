from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def halves(k: R.Prim(value="n"), x: R.Tensor(("n * 2",), "float32")) -> R.Tensor(("n",), "float32"):
        R.func_attr({"tir_var_upper_bound": {"n": 8}})
        n = T.int64()
        y = R.reshape(x, R.shape([2, n]))
        z = R.sum(y, axis=[0])
        return z
