"""TEXT.SAFE: the parser walks Python's ``ast`` and never evaluates script text. A static check of
the parser's own source: no call of the builtins ``eval``/``exec``/``compile``/``__import__`` and no
import of ``importlib`` (``Evaluator.eval_node`` is a method that dispatches on ast node kinds)."""

import ast
from pathlib import Path

import relax_ref.script as script

FORBIDDEN_CALLS = {"eval", "exec", "compile", "__import__", "breakpoint"}


def _parser_files():
    root = Path(script.__file__).parent
    return sorted(root.rglob("*.py"))


def test_parser_sources_never_call_evaluating_builtins():
    offenders = []
    files = _parser_files()
    assert len(files) >= 10
    for path in files:
        tree = ast.parse(path.read_text(), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in FORBIDDEN_CALLS:
                offenders.append(f"{path.name}:{node.lineno} calls {node.func.id}")
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", None) or ""]
                if any(n.split(".")[0] == "importlib" for n in names):
                    offenders.append(f"{path.name}:{node.lineno} imports importlib")
    assert offenders == []
