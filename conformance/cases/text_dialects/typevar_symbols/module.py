from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

n = TypeVar("n")


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n, 2), "float32")) -> R.Tensor((n, 2), "float32"):
        y = R.add(x, x)
        return y
