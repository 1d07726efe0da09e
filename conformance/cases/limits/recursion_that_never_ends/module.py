from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def down(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        m = R.add(n, R.const(1, "int64"))
        r = cls.down(m)
        return r

    @R.function
    def main(n: R.Tensor((), "int64")) -> R.Tensor((), "int64"):
        cls = Module
        r = cls.down(n)
        return r
