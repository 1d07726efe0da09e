from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(k: T.int64, x: R.Tensor((k,), "float32")) -> R.Shape(ndim=1):
        s = R.shape([k + 1])
        return s
