"""The pass of the guide docs/guides/write-a-pass.md, run as the guide shows: its code block executes,
the pass removes the identity reshape of the guide's example, and check_pass accepts it."""

import re
from pathlib import Path

import relax_ref
from relax_ref.testing import check_pass
from relax_ref.transform import CanonicalizeBindings, Sequential

GUIDE = Path(__file__).resolve().parents[2] / "docs" / "guides" / "write-a-pass.md"

TEXT = '''
from tvm.script import ir as I, relax as R, tir as T

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(("n", 4), "float32")) -> R.Tensor(("n", 4), "float32"):
        n = T.int64()
        with R.dataflow():
            y = R.reshape(x, R.shape([n, 4]))
            z = R.add(y, y)
            R.output(z)
        return z
'''


def _guide_pass():
    code = re.findall(r"```python\n(.*?)```", GUIDE.read_text(), re.S)[0]
    ns: dict = {}
    exec(compile(code, str(GUIDE), "exec"), ns)  # the guide's own code, from this repository
    return ns["DropIdentityReshape"]


def test_guide_pass_runs_and_checks():
    drop = _guide_pass()
    out = Sequential([drop(), CanonicalizeBindings()])(relax_ref.parse(TEXT))
    assert "R.reshape" not in out.script() and "R.add(x, x)" in out.script()
    check_pass(drop(), max_examples=15)
