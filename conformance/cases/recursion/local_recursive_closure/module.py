from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(n: R.Tensor((), "int32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        @R.function
        def loop(k: R.Tensor((), "int32"), v: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
            c = R.greater(k, R.const(0, "int32"))
            if c:
                k1 = R.subtract(k, R.const(1, "int32"))
                v1 = R.add(v, x)
                r = loop(k1, v1)
            else:
                r = v
            return r
        out = loop(n, x)
        return out
