from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def make(s: R.Tensor(("n",), "float32")) -> R.Callable((R.Tensor("float32", ndim=1),), R.Tensor("float32", ndim=1)):
        @R.function
        def add_s(v: R.Tensor("float32", ndim=1)) -> R.Tensor("float32", ndim=1):
            w = R.add(v, s)
            return w
        return add_s
