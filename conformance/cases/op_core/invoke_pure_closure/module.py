from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def affine(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        y = R.multiply(x, w)
        z = R.add(y, b)
        return z

    @R.function
    def main(x: R.Tensor((3,), "float32"), w: R.Tensor((3,), "float32"), b: R.Tensor((3,), "float32")) -> R.Tensor((3,), "float32"):
        cls = Module
        clo = R.make_closure(cls.affine, (w, b))
        y = R.invoke_pure_closure(clo, (x,), sinfo_args=R.Tensor((3,), "float32"))
        return y
