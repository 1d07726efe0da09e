from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main():
        z0 = R.zeros(R.shape([2, 3]), "float32")
        r0 = R.inspect.tensor_dtype_lanes(z0)
        z1 = R.zeros(R.shape([2, 3]), "int8")
        r1 = R.inspect.tensor_dtype_lanes(z1)
        z2 = R.zeros(R.shape([2, 3]), "uint16")
        r2 = R.inspect.tensor_dtype_lanes(z2)
        z3 = R.zeros(R.shape([2, 3]), "float64")
        r3 = R.inspect.tensor_dtype_lanes(z3)
        y = (r0, r1, r2, r3)
        return y
