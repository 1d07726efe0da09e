"""Mutations for the fuzzer: of program texts (the conformance suite's modules) and of argument lists.

Text mutations work on the text, not the IR, so that they reach the parser with what a careless user
or an attacker writes: a literal replaced by a boundary value (``0``, ``-1``, ``2**31``, ``2**63``,
``2**64 + 3``, ``10**30``), a float by ``nan``/``inf``/``1e300``, a dtype string by another (or by
``"handle"``, ``""``, a misspelling), an operator by another one, a line deleted or duplicated, an
argument dropped, a keyword given an absurd value, two names swapped, the text cut short. Each
mutation is named, so that a finding says what produced it.

Argument mutations (:func:`wrong_inputs`) turn a correct argument list into a wrong one: another dtype,
rank or extent, extreme values (NaN, infinities, integer limits), a Python scalar, ``None``, a string,
an object array or a nested list instead of a tensor, out-of-range prim values, a missing or an extra
argument.

Everything is drawn from the ``numpy`` generator passed in: the same seed gives the same mutations.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Dict, List, Sequence, Tuple

import numpy as np

#: integer boundary values (int32, int64 and uint64 limits, beyond them, zero and negatives)
INTS = ["0", "1", "-1", "2", "3", "7", "255", "2147483647", "2147483648", "4294967296",
        "9223372036854775807", "9223372036854775808", "18446744073709551619", "-9223372036854775808",
        "1000000000000000000000000000000"]
FLOATS = ["0.0", "-0.0", "1e300", "-1e300", "1e-45", "3.5", "1e38", "65504.0"]
DTYPES = ["float32", "float16", "bfloat16", "float64", "int8", "uint8", "int16", "int32", "int64", "uint32",
          "uint64", "bool", "handle", "void", "", "flot32", "int65", "float8_e4m3fn", "float32x4"]
KEYWORD_VALUES = ["0", "-1", "2147483648", "9223372036854775808", "1000000000000000000000000000000",
                  "(0, 0)", "[]", "None", '"x"', "1.5", "True", "(1, -1)", "[2, 3, 4, 5, 6]"]

_INT = re.compile(r"(?<![\w.\"'])\d+(?![\w.\"'])")
_FLOAT = re.compile(r"(?<![\w.])\d+\.\d*(?:e[-+]?\d+)?(?![\w])")
_DTYPE = re.compile(r"\"(?:float|int|uint|bool|bfloat|handle|void)[\w]*\"")
_OP = re.compile(r"\bR\.((?:nn\.|image\.|memory\.|builtin\.|vm\.)?[a-z_0-9]+)\(")
_KW = re.compile(r"\b([a-z_]+)=([^,()\[\]]+|\([^()]*\)|\[[^\[\]]*\])")
_ARG = re.compile(r",\s*[^,()\[\]]+(?=[,)])")
_NAME = re.compile(r"^\s+([a-z_][a-z_0-9]*)\s*(?::[^=]*)?=", re.M)


def _sub_at(text: str, m: "re.Match[str]", new: str) -> str:
    return text[:m.start()] + new + text[m.end():]


def _pick(rng: np.random.Generator, items: Sequence[Any]) -> Any:
    return items[int(rng.integers(len(items)))]


def _regex_mutation(pattern: "re.Pattern[str]", choose: Callable[[np.random.Generator, "re.Match[str]"], str]):
    def mutate(text: str, rng: np.random.Generator) -> str:
        ms = list(pattern.finditer(text))
        if not ms:
            return text
        m = _pick(rng, ms)
        return _sub_at(text, m, choose(rng, m))
    return mutate


def _op_names() -> List[str]:
    from ..ops import registry

    names = sorted({op.script[2:] for op in registry.all_ops() if op.script and op.script.startswith("R.")})
    return names or ["add"]


_OPS: List[str] = []


def _swap_op(rng: np.random.Generator, m: "re.Match[str]") -> str:
    if not _OPS:
        _OPS.extend(_op_names())
    return f"R.{_pick(rng, _OPS)}("


def _body_lines(text: str) -> List[int]:
    """Indices of the lines inside functions (indented, not decorators or headers)."""
    lines = text.split("\n")
    return [i for i, ln in enumerate(lines) if ln.startswith("        ") and ln.strip()]


def delete_line(text: str, rng: np.random.Generator) -> str:
    lines = text.split("\n")
    body = _body_lines(text)
    if not body:
        return text
    del lines[_pick(rng, body)]
    return "\n".join(lines)


def duplicate_line(text: str, rng: np.random.Generator) -> str:
    lines = text.split("\n")
    body = _body_lines(text)
    if not body:
        return text
    i = _pick(rng, body)
    lines.insert(i, lines[i])
    return "\n".join(lines)


def swap_names(text: str, rng: np.random.Generator) -> str:
    names = sorted({m.group(1) for m in _NAME.finditer(text)})
    if len(names) < 2:
        return text
    a, b = rng.choice(len(names), 2, replace=False)
    occ = [m for m in re.finditer(rf"\b{re.escape(names[int(a)])}\b", text)]
    return _sub_at(text, _pick(rng, occ), names[int(b)]) if occ else text


def truncate(text: str, rng: np.random.Generator) -> str:
    return text[:int(rng.integers(len(text) // 2, len(text)))] if text else text


#: named text mutations
TEXT_MUTATIONS: Dict[str, Callable[[str, np.random.Generator], str]] = {
    "int": _regex_mutation(_INT, lambda rng, m: _pick(rng, INTS)),
    "int_to_symbol": _regex_mutation(_INT, lambda rng, m: _pick(rng, ['"n"', '"m"', "n", "-n"])),
    "float": _regex_mutation(_FLOAT, lambda rng, m: _pick(rng, FLOATS)),
    "dtype": _regex_mutation(_DTYPE, lambda rng, m: f'"{_pick(rng, DTYPES)}"'),
    "op": _regex_mutation(_OP, _swap_op),
    "keyword": _regex_mutation(_KW, lambda rng, m: f"{m.group(1)}={_pick(rng, KEYWORD_VALUES)}"),
    "drop_arg": _regex_mutation(_ARG, lambda rng, m: ""),
    "delete_line": delete_line,
    "duplicate_line": duplicate_line,
    "swap_names": swap_names,
    "truncate": truncate,
}
#: relative frequencies (truncation rarely: it mostly tests the parser's error path)
_WEIGHTS = {"int": 4, "int_to_symbol": 1, "float": 2, "dtype": 3, "op": 3, "keyword": 3, "drop_arg": 2,
            "delete_line": 2, "duplicate_line": 1, "swap_names": 2, "truncate": 0.3}


def mutate_text(text: str, rng: np.random.Generator, count: int) -> Tuple[str, List[str]]:
    """``count`` mutations of ``text``; returns the text and the names of the mutations applied."""
    names = list(_WEIGHTS)
    p = np.array([_WEIGHTS[n] for n in names], float)
    p /= p.sum()
    applied = []
    for _ in range(count):
        name = names[int(rng.choice(len(names), p=p))]
        new = TEXT_MUTATIONS[name](text, rng)
        if new != text:
            applied.append(name)
            text = new
    return text, applied


# ---------------------------------------------------------------------------------------------------
# arguments
# ---------------------------------------------------------------------------------------------------

_OTHER_DTYPES = ["float32", "float64", "float16", "int8", "uint8", "int32", "int64", "bool"]

#: the most bytes a wrong argument the harness makes may hold: growing an extent of a tensor without
#: elements (``(0, 2**32)`` to ``(1, 2**32)``) must not allocate gigabytes in the worker
MAX_WRONG_BYTES = 1 << 24


def _extreme(a: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    a = a.copy()
    if a.size == 0:
        return a
    flat = a.reshape(-1)
    i = int(rng.integers(flat.size))
    if a.dtype.kind == "f":
        flat[i] = _pick(rng, [np.nan, np.inf, -np.inf, np.finfo(a.dtype).max, -0.0])
    elif a.dtype.kind in "iu":
        info = np.iinfo(a.dtype)
        flat[i] = _pick(rng, [info.max, info.min, 0])
    return a


def _grown(shape: Tuple[int, ...], axis: int) -> Tuple[int, ...]:
    return shape[:axis] + (shape[axis] + 1,) + shape[axis + 1:]


def _nbytes(shape: Sequence[int], itemsize: int) -> int:
    n = itemsize
    for d in shape:
        n *= d
    return n


def _wrong_tensor(a: np.ndarray, rng: np.random.Generator) -> Any:
    choice = int(rng.integers(10))
    if choice == 0:
        return a.astype(_pick(rng, [d for d in _OTHER_DTYPES if d != str(a.dtype)]))
    if choice == 1 and a.ndim < 64:                # numpy's largest rank is 64
        return a.reshape(a.shape + (1,))
    if choice == 2:
        return a.reshape(-1)[:max(a.size - 1, 0)] if a.ndim <= 1 else a.reshape(-1)
    if choice == 3 and a.ndim:
        i = int(rng.integers(a.ndim))
        grown = [_grown(a.shape, j) for j in range(a.ndim)]
        small = [j for j in range(a.ndim) if _nbytes(grown[j], a.itemsize) <= MAX_WRONG_BYTES]
        if small:                                  # the drawn axis, or the first one whose growth stays small
            j = i if i in small else small[0]
            return np.zeros(grown[j], a.dtype)
    if choice == 4:
        return _extreme(a, rng)
    if choice == 5:
        return float(a.reshape(-1)[0]) if a.size else 1.5
    if choice == 6:
        return _pick(rng, [None, "x", b"x", [1, 2]])
    if choice == 7:
        return np.array([object()] * max(a.size, 1), dtype=object)
    if choice == 8:
        return a.tolist()
    return np.zeros((0,) + a.shape[1:], a.dtype)


def _wrong_value(v: Any, rng: np.random.Generator) -> Any:
    if isinstance(v, np.ndarray):
        return _wrong_tensor(v, rng)
    if isinstance(v, bool):
        return _pick(rng, [2, None, "True", np.array([True, False])])
    if isinstance(v, int):
        return _pick(rng, [2**64 - 1, 2**63, -2**63 - 1, 10**30, -1, 1.5, None, np.int8(3)])
    if isinstance(v, float):
        return _pick(rng, [float("nan"), float("inf"), 10**400, "1.0", None])
    if isinstance(v, tuple):
        if v and rng.integers(2):
            i = int(rng.integers(len(v)))
            return v[:i] + (_wrong_value(v[i], rng),) + v[i + 1:]
        return _pick(rng, [v + v[:1], v[:-1], (), None])
    shape = getattr(v, "__iter__", None) and type(v).__name__ == "ShapeValue"
    if shape:
        dims = list(v)
        return _pick(rng, [tuple(dims) + (1,), tuple(-1 for _ in dims), tuple(2**63 for _ in dims),
                           tuple(10**30 for _ in dims), "shape"])
    return _pick(rng, [None, 0, np.zeros(2, "float32")])


def wrong_inputs(args: Sequence[Any], rng: np.random.Generator, count: int) -> List[Tuple[str, List[Any]]]:
    """``count`` wrong variants of the argument list ``args``, each labelled with its number and what
    was changed (``"wrong 2: argument 0"``): labels are unique within a program's runs, so a finding's
    label names the one run whose arguments it reports."""
    out = []
    for _ in range(count):
        args2 = list(args)
        r = int(rng.integers(10))
        if r == 0 and args2:
            out.append(("missing argument", args2[:-1]))
            continue
        if r == 1:
            out.append(("extra argument", args2 + [np.zeros(1, "float32")]))
            continue
        if not args2:
            continue
        i = int(rng.integers(len(args2)))
        args2[i] = _wrong_value(args2[i], rng)
        out.append((f"argument {i}", args2))
    return [(f"wrong {n + 1}: {what}", a) for n, (what, a) in enumerate(out)]


__all__ = ["TEXT_MUTATIONS", "mutate_text", "wrong_inputs", "INTS", "FLOATS", "DTYPES"]
