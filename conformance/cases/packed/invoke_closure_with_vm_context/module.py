from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function(private=True)
    def inner(y: R.Tensor((2,), "float32"), x: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        z = R.subtract(y, x)
        return z

    @R.function(pure=False)
    def main(x: R.Tensor((2,), "float32"), y: R.Tensor((2,), "float32")) -> R.Tensor((2,), "float32"):
        cls = Module
        c = R.call_packed("vm.builtin.make_closure", cls.inner, x, sinfo_args=(R.Object,))
        r = R.call_builtin_with_ctx("vm.builtin.invoke_closure", (c, y), sinfo_args=(R.Object,))
        s = R.match_cast(r, R.Tensor((2,), "float32"))
        return s
