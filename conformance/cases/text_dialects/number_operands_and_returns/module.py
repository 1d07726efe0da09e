from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((3,), "float32")) -> R.Tuple(R.Tensor((), "float32"), R.Prim("int64")):
        y = R.take(x, 1, axis=0)
        return (y, 2)
