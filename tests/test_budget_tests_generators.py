"""Size budgets of the tests and the case generators: no function over 100 lines and no file over 800
lines (the developers' guide), so that every test and every family of cases stays readable on its own.
The generated cases (conformance/cases) are data and are not counted."""

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
AREAS = ("tests", "conformance/generate")
MAX_FUNCTION_LINES = 100
MAX_FILE_LINES = 800


def _sources():
    files = sorted(p for area in AREAS for p in (REPO / area).rglob("*.py"))
    assert files, "no sources found"
    return files


def _long_functions(path, root=REPO):
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            start = min([node.lineno] + [d.lineno for d in node.decorator_list])
            length = node.end_lineno - start + 1
            if length > MAX_FUNCTION_LINES:
                yield f"{path.relative_to(root)}:{node.lineno} {node.name} ({length} lines)"


def test_no_function_over_the_budget():
    assert [f for path in _sources() for f in _long_functions(path)] == []


def test_no_file_over_the_budget():
    sizes = {path.relative_to(REPO).as_posix(): len(path.read_text(encoding="utf-8").splitlines())
             for path in _sources()}
    assert {p: n for p, n in sizes.items() if n > MAX_FILE_LINES} == {}


def test_the_budget_check_sees_a_long_function(tmp_path):
    """A function of 102 lines counting its decorator is over the budget; a short one is not."""
    body = "\n".join(f"    x{i} = {i}" for i in range(MAX_FUNCTION_LINES))
    long = tmp_path / "long.py"
    long.write_text(f"@staticmethod\ndef f():\n{body}\n", encoding="utf-8")
    short = tmp_path / "short.py"
    short.write_text("def g():\n    return 1\n", encoding="utf-8")
    assert [f.split(" ")[1] for f in _long_functions(long, tmp_path)] == ["f"]
    assert list(_long_functions(short, tmp_path)) == []
