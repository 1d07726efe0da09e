from tvm.script import ir as I, relax as R, tirx as T


@I.ir_module
class Module:
    @R.function
    def main():
        z0 = R.zeros(R.shape([2, 3]), "bool")
        r0 = R.inspect.tensor_dtype_code(z0)
        z1 = R.zeros(R.shape([2, 3]), "bfloat16")
        r1 = R.inspect.tensor_dtype_code(z1)
        z2 = R.zeros(R.shape([2, 3]), "float8_e4m3fn")
        r2 = R.inspect.tensor_dtype_code(z2)
        z3 = R.zeros(R.shape([2, 3]), "float8_e5m2")
        r3 = R.inspect.tensor_dtype_code(z3)
        y = (r0, r1, r2, r3)
        return y
