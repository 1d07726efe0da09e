from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape(["n", "m"]), x: R.Tensor(("n * m",), "float32")) -> R.Tensor(("m", "n"), "float32"):
        R.func_attr({"tir_var_upper_bound": {"m": 3, "q": 0}})
        n = T.int64()
        m = T.int64()
        q = T.int64()
        y = R.reshape(x, R.shape([n, m]))
        z = R.permute_dims(y, axes=[1, 0])
        w = R.match_cast(z, R.Tensor((q, n), "float32"))
        return w
