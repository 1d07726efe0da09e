from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main(a: R.Tensor((3,), "bool"), b: R.Tensor((3,), "int8"), c: R.Tensor((3,), "uint8"), d: R.Tensor((3,), "float16"), e: R.Tensor((3,), "float64"), f: R.Tensor((3,), "int64")) -> R.Tuple(R.Tensor((3,), "bool"), R.Tensor((3,), "int8"), R.Tensor((3,), "uint8"), R.Tensor((3,), "float16"), R.Tensor((3,), "float64"), R.Tensor((3,), "int64")):
        return (a, b, c, d, e, f)
