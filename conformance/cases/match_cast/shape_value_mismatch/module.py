from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Shape) -> R.Shape([2, 3]):
        t = R.match_cast(s, R.Shape([2, 3]))
        return t
