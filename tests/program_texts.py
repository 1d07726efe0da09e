"""Functions that several tests put in their TVMScript programs, one text each so that every test reads
the same function: ``X_TOP`` the top-level text, ``X`` the member of an ``@I.ir_module`` class
(indented by four spaces; a PrimFunc private); each ends in a newline. A program that a conformance case
already holds is read from the case (``case_text``, ``case_member``), not spelled again."""

import textwrap
from pathlib import Path

CASES = Path(__file__).resolve().parents[1] / "conformance" / "cases"


def case_text(category: str, name: str) -> str:
    """The module text of the conformance case ``<category>/<name>``."""
    return (CASES / category / name / "module.py").read_text(encoding="utf-8")


def case_member(category: str, name: str, function: str) -> str:
    """The text of one member of a case's ``@I.ir_module`` class (its decorators and body, indented by four
    spaces as in the case), ending in a newline."""
    lines = case_text(category, name).splitlines(keepends=True)
    start = head = next(i for i, line in enumerate(lines) if line.startswith(f"    def {function}("))
    while lines[start - 1].startswith("    @"):
        start -= 1
    end = head + 1
    while end < len(lines) and not lines[end].startswith(("    @", "    def ")):
        end += 1
    return "".join(lines[start:end]).rstrip("\n") + "\n"


def _member(top: str) -> str:
    return textwrap.indent(top.replace("@T.prim_func\n", "@T.prim_func(private=True)\n", 1), "    ")


def _loop_top(name: str, params: str, body: str) -> str:
    """A PrimFunc ``name(a, b<params>)`` over two float32 buffers of a symbolic length ``n`` whose loop
    over ``i`` runs ``body``."""
    return f'''@T.prim_func
def {name}(a: T.handle, b: T.handle{params}):
    n = T.int64()
    A = T.match_buffer(a, (n,), "float32")
    B = T.match_buffer(b, (n,), "float32")
    for i in range(n):
        {body}
'''


#: ``copy``: B[i] = A[i] over a symbolic length
COPY_TOP = _loop_top("copy", "", "B[i] = A[i]")

#: ``addn``: B[i] = A[i] + m over a symbolic length, ``m`` a scalar parameter
ADDN_TOP = _loop_top("addn", ", m: T.int64", 'B[i] = A[i] + T.Cast("float32", m)')

#: ``shift``: B[i] = A[i + k] over a symbolic length (out of bounds for k > 0)
SHIFT_TOP = _loop_top("shift", ", k: T.int64", "B[i] = A[i + k]")

#: ``fact``: the factorial of a scalar, by recursion through the module (``cls.fact``), as the case
#: ``recursion/factorial`` writes it
FACT = case_member("recursion", "factorial", "fact")
FACT_TOP = textwrap.dedent(FACT)

COPY = _member(COPY_TOP)
ADDN = _member(ADDN_TOP)

#: the start of a module whose ``main(x: (n, 4) float32)`` binds ``y = x + x`` in a dataflow block
DOUBLE_IN_DATAFLOW = '''@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        with R.dataflow():
            y = R.add(x, x)
'''

#: the start of a module whose ``main(c, x)`` binds ``y`` in a branch on ``c``
IF_ELSE = '''@I.ir_module
class Module:
    @R.function
    def main(c: R.Tensor((), "bool"), x: R.Tensor((4,), "float32")) -> R.Tensor((4,), "float32"):
        if c:
            a = R.add(x, x)
            y = R.multiply(a, x)
        else:
            y = R.subtract(x, x)
'''

#: a module whose ``step(tok: (1, 4), cache: (m, 4), w: (1, 4))`` returns ``(sum of the grown cache, the
#: cache grown by the row tok * w)`` and whose ``pick(idx: (1,) int64, cache: (m, 4))`` grows the cache by
#: its row ``idx``: a cache grown with ``concat`` one row a call, as a decode step does
GROWING_CACHE = '''
from tvm.script import ir as I, relax as R, tir as T


@I.ir_module
class Module:
    @R.function
    def step(tok: R.Tensor((1, 4), "float32"), cache: R.Tensor(("m", 4), "float32"),
             w: R.Tensor((1, 4), "float32")):
        m = T.int64()
        row = R.multiply(tok, w)
        grown = R.concat([cache, row], axis=0)
        total = R.sum(grown, axis=[0], keepdims=True)
        return (total, grown)

    @R.function
    def pick(idx: R.Tensor((1,), "int64"), cache: R.Tensor(("m", 4), "float32")):
        m = T.int64()
        row = R.take(cache, idx, axis=0)
        grown = R.concat([cache, row], axis=0)
        return grown
'''

#: a Relax function (module-body indentation) that creates a KV cache of 4 rows of 3 (CALL.KVCACHE.1)
#: and appends the two rows of ``a`` (CALL.KVCACHE.2): the first function of the KV-cache test modules
KV_CREATE = '''    @R.function
    def create(a: R.Tensor((2, 3), "float32")) -> R.Object:
        c = R.call_pure_packed("vm.builtin.attention_kv_cache_create", R.zeros(R.shape([4, 3]), "float32"),
                               R.shape([4, 3]), R.prim_value(0), sinfo_args=R.Object)
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, a, inplace_indices=[0],
                                   sinfo_args=R.Object())
        return c1
'''

#: a Relax function (module-body indentation) of one decode-like step over a KV cache of rows of 3: the
#: row ``b`` appended (CALL.KVCACHE.2), the view of the ``m`` cached rows (CALL.KVCACHE.5), their sum
KV_STEP_SUM = '''    @R.function
    def step_sum(c: R.Object, b: R.Tensor((1, 3), "float32"), s: R.Shape(["m"])) -> R.Tuple(R.Object, R.Tensor((3,), "float32")):
        m = T.int64()
        c1 = R.call_inplace_packed("vm.builtin.attention_kv_cache_append", c, b, inplace_indices=[0],
                                   sinfo_args=R.Object())
        v = R.call_pure_packed("vm.builtin.attention_kv_cache_view", c1, R.shape([m, 3]),
                               sinfo_args=R.Tensor((m, 3), "float32"))
        t = R.sum(v, axis=[0])
        return (c1, t)
'''
