from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(n: R.Tensor((), "int32"), acc: R.Tensor((), "int32")) -> R.Tensor((), "int32"):
        cls = Module
        c = R.greater(n, R.const(0, "int32"))
        if c:
            m = R.subtract(n, R.const(1, "int32"))
            a = R.add(acc, R.const(2, "int32"))
            r = cls.main(m, a)
        else:
            r = acc
        return r
