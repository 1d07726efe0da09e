from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        @R.function
        def twice(f: R.Callable((R.Tensor((3,), "float32"),), R.Tensor((3,), "float32")), v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            a = f(v)
            b = f(a)
            return b
        @R.function
        def inc(v: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
            w = R.add(v, R.const(1.0, "float32"))
            return w
        r = twice(inc, x)
        return r
