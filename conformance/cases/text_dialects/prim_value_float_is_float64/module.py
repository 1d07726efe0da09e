from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> T.float64:
        v = R.prim_value(0.5)
        return v
