from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def is_even(n: R.Tensor((), "int32")) -> R.Tensor((), "bool"):
        cls = Module
        z = R.equal(n, R.const(0, "int32"))
        if z:
            r = R.const(True, "bool")
        else:
            m = R.subtract(n, R.const(1, "int32"))
            r = cls.is_odd(m)
        return r

    @R.function
    def is_odd(n: R.Tensor((), "int32")) -> R.Tensor((), "bool"):
        cls = Module
        z = R.equal(n, R.const(0, "int32"))
        if z:
            r = R.const(False, "bool")
        else:
            m = R.subtract(n, R.const(1, "int32"))
            r = cls.is_even(m)
        return r

    @R.function
    def main(n: R.Tensor((), "int32")) -> R.Tuple(R.Tensor((), "bool"), R.Tensor((), "bool")):
        cls = Module
        a = cls.is_even(n)
        b = cls.is_odd(n)
        return (a, b)
