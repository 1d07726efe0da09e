from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(s: R.Object):
        y = R.memory.ensure_zero_offset(s)
        return y
