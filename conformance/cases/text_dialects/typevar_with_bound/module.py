from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

n = TypeVar("n", bound=int)


@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((n,), "float32")) -> R.Tensor((n,), "float32"):
        return x
