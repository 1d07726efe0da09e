from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def add_x(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            w = R.add(v, x)
            return w
        @R.function
        def add_x_twice(v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            a = add_x(v)
            b = add_x(a)
            return b
        r = add_x_twice(x)
        return r
