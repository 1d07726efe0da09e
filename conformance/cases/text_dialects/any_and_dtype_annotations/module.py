from typing import TypeVar
from tvm.script import ir as I, relax as R, tirx as T

@I.ir_module
class Module:
    @R.function
    def main(o: R.Any, p: T.float32) -> T.float32:
        q: T.float32 = p
        return q
