from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(n: T.int64) -> R.Shape(ndim=2):
        y: T.int64 = n * 2 + 1
        z = y - n
        s = R.shape([z, y])
        return s
