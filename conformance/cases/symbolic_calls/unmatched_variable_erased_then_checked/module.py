from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def square(x: R.Tensor(("n",), "float32")) -> R.Tensor(("n", "n"), "float32"):
        n = T.int64()
        a = R.reshape(x, R.shape([n, 1]))
        b = R.reshape(x, R.shape([1, n]))
        c = R.multiply(a, b)
        return c

    @R.function
    def three(m: R.Tensor((3, 3), "float32")) -> R.Tensor((3, 3), "float32"):
        return m

    @R.function
    def main(x: R.Tensor("float32", ndim=1)) -> R.Tensor((3, 3), "float32"):
        cls = Module
        s = cls.square(x)
        r = cls.three(s)
        return r
