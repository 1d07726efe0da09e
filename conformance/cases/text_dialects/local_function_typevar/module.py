from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        m = TypeVar("m")

        @R.function
        def inner(a: R.Tensor((m,), "float32")) -> R.Tensor((m,), "float32"):
            b = R.add(a, a)
            return b

        y = inner(x)
        return y
