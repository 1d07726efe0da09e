"""TVM's metadata section: ``metadata = tvm.ir.load_json(\"\"\"...\"\"\")`` (spec rule TEXT.META.1).

With ``show_meta=True`` (and for constants that a nested list cannot express, such as shape
``(0, 3)``), non-scalar constants print as ``metadata["relax.expr.Constant"][i]`` and the text starts
with the JSON node graph that TVM's ``tvm.ir.load_json`` reads: nodes ``ffi.String``, ``None``,
``ir.IntImm``, ``ffi.Array``, ``ffi.Map``, ``relax.ShapeStructInfo``, ``relax.expr.ShapeExpr``,
``relax.TensorStructInfo``, ``ffi.Tensor`` (base64 of TVM's tensor serialization) and
``relax.expr.Constant``.

:func:`decode_metadata` is the inverse, for readers of such text (it accepts TVM's own output).
"""

from __future__ import annotations

import base64
import json
import struct
from typing import Dict, List

import numpy as np

from ...errors import ParseError, UnsupportedError
from ...ir import dtype as _dt

TENSOR_MAGIC = 0xDD5E40F096B4A13F
CONSTANT_KEY = "relax.expr.Constant"

# DLPack type codes
_DL_INT, _DL_UINT, _DL_FLOAT, _DL_BFLOAT, _DL_BOOL = 0, 1, 2, 4, 6
_DL_CODES = {"float8_e4m3fn": (10, 8), "float8_e5m2": (12, 8), "bfloat16": (_DL_BFLOAT, 16), "bool": (_DL_BOOL, 8)}
_CODE_TO_DTYPE = {(10, 8): "float8_e4m3fn", (12, 8): "float8_e5m2", (_DL_BFLOAT, 16): "bfloat16",
                  (_DL_BOOL, 8): "bool", (_DL_UINT, 1): "bool"}


def _dl_type(dtype: str):
    if dtype in _DL_CODES:
        return _DL_CODES[dtype]
    if _dt.is_int(dtype):
        return _DL_INT, _dt.bits(dtype)
    if _dt.is_uint(dtype):
        return _DL_UINT, _dt.bits(dtype)
    if _dt.is_float(dtype):
        return _DL_FLOAT, _dt.bits(dtype)
    raise UnsupportedError(f"metadata: no tensor encoding for dtype '{dtype}'")


def _dtype_of(code: int, bits: int) -> str:
    if (code, bits) in _CODE_TO_DTYPE:
        return _CODE_TO_DTYPE[(code, bits)]
    if code == _DL_INT:
        return f"int{bits}"
    if code == _DL_UINT:
        return f"uint{bits}"
    if code == _DL_FLOAT:
        return f"float{bits}"
    raise ParseError(f"metadata: unsupported tensor type code {code} with {bits} bits")


def encode_tensor(arr: np.ndarray) -> str:
    """TVM's binary tensor serialization, base64-encoded."""
    dtype = _dt.from_numpy(arr.dtype)
    code, bits = _dl_type(dtype)
    data = np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes()
    head = struct.pack("<QQiii", TENSOR_MAGIC, 0, 1, 0, arr.ndim) + struct.pack("<BBH", code, bits, 1)
    shape = struct.pack("<" + "q" * arr.ndim, *arr.shape)
    return base64.b64encode(head + shape + struct.pack("<q", len(data)) + data).decode("ascii")


def decode_tensor(text: str) -> np.ndarray:
    raw = base64.b64decode(text)
    if len(raw) < 28:
        raise ParseError("metadata: truncated tensor")
    magic, _reserved, _dev_type, _dev_id, ndim = struct.unpack_from("<QQiii", raw, 0)
    if magic != TENSOR_MAGIC:
        raise ParseError("metadata: bad tensor magic number")
    code, bits, lanes = struct.unpack_from("<BBH", raw, 28)
    if lanes != 1:
        raise ParseError("metadata: vector tensors are not supported")
    shape = struct.unpack_from("<" + "q" * ndim, raw, 32)
    off = 32 + 8 * ndim
    (nbytes,) = struct.unpack_from("<q", raw, off)
    data = raw[off + 8: off + 8 + nbytes]
    dtype = _dtype_of(code, bits)
    np_dtype = _dt.to_numpy(dtype).newbyteorder("<")
    return np.frombuffer(data, dtype=np_dtype).astype(_dt.to_numpy(dtype)).reshape(shape)


def encode_constants(arrays: List[np.ndarray], dialect=None) -> str:
    """The JSON node graph of ``{key: [Constant...]}`` as the dialect's TVM writes it: TVM 0.25's
    ``relax.expr.Constant`` nodes (struct info in ``struct_info_``, tensor in ``data``), or TVM 0.27's
    ``ir.GenericConst`` (type in ``ty``, tensor in ``value``; dtypes as ``ir.PrimType`` nodes)."""
    v027 = dialect is not None and dialect.constant_key == "ir.GenericConst"
    key = dialect.constant_key if dialect is not None else CONSTANT_KEY
    nodes: list = [{"type": "ffi.String", "data": key}, {"type": "None"}]

    def add(node) -> int:
        nodes.append(node)
        return len(nodes) - 1

    prim_types: dict = {}

    def prim_type(dtype: str) -> int:
        if dtype not in prim_types:
            prim_types[dtype] = add({"type": "ir.PrimType", "data": {"span": 1, "dtype": dtype}})
        return prim_types[dtype]

    consts = []
    for arr in arrays:
        dtype = _dt.from_numpy(arr.dtype)
        if v027:
            dims = [add({"type": "ir.IntImm", "data": {"span": 1, "ty": prim_type("int64"),
                                                       "value": add({"type": "int", "data": int(d)})}})
                    for d in arr.shape]
            values = add({"type": "ffi.Array", "data": dims})
            sty = add({"type": "relax.ShapeType", "data": {"span": 1, "values": values, "ndim": arr.ndim}})
            shape = add({"type": "relax.expr.ShapeExpr", "data": {"span": 1, "ty": sty, "values": values}})
            tty = add({"type": "relax.TensorType", "data": {"span": 1, "shape": shape, "dtype": prim_type(dtype),
                                                            "vdevice": 1, "ndim": arr.ndim}})
            tensor = add({"type": "ffi.Tensor", "data": encode_tensor(arr)})
            consts.append(add({"type": "ir.GenericConst", "data": {"span": 1, "ty": tty, "value": tensor}}))
            continue
        dims = [add({"type": "ir.IntImm", "data": {"span": 1, "dtype": "int64", "value": int(d)}})
                for d in arr.shape]
        values = add({"type": "ffi.Array", "data": dims})
        ssi = add({"type": "relax.ShapeStructInfo", "data": {"span": 1, "values": values, "ndim": arr.ndim}})
        shape = add({"type": "relax.expr.ShapeExpr", "data": {"span": 1, "struct_info_": ssi, "values": values}})
        tsi = add({"type": "relax.TensorStructInfo",
                   "data": {"span": 1, "shape": shape, "dtype": dtype, "vdevice": 1, "ndim": arr.ndim}})
        tensor = add({"type": "ffi.Tensor", "data": encode_tensor(arr)})
        consts.append(add({"type": "relax.expr.Constant",
                           "data": {"span": 1, "struct_info_": tsi, "data": tensor}}))
    array = add({"type": "ffi.Array", "data": consts})
    root = add({"type": "ffi.Map", "data": [0, array]})
    version = "0.27.0" if v027 else "0.25.0"
    return json.dumps({"root_index": root, "nodes": nodes, "metadata": {"tvm_version": version}}, indent=2)


def metadata_header(arrays: List[np.ndarray], dialect=None) -> str:
    """The ``metadata = tvm.ir.load_json(\"\"\"...\"\"\")`` line(s) that open the printed text."""
    body = encode_constants(arrays, dialect).replace("\\", "\\\\").replace('"', '\\"')
    return f'metadata = tvm.ir.load_json("""{body}""")'


def decode_metadata(json_text: str) -> Dict[str, List[np.ndarray]]:
    """Read a metadata JSON graph (the text inside ``tvm.ir.load_json(\"\"\"...\"\"\")``, with the
    Python string escapes already removed). Returns ``{"relax.expr.Constant": [array, ...]}`` (TVM 0.27:
    ``{"ir.GenericConst": [...]}``).
    Raises ParseError for malformed input and for node types other than tensor constants."""
    try:
        graph = json.loads(json_text)
        nodes = graph["nodes"]
        root = graph["root_index"]
    except (ValueError, KeyError, TypeError) as e:
        raise ParseError(f"metadata: not a TVM JSON graph ({e})") from None
    memo: dict = {}

    def node(i):
        if i in memo:
            return memo[i]
        try:
            n = nodes[i]
        except (IndexError, TypeError):
            raise ParseError(f"metadata: node index {i!r} out of range") from None
        t = n.get("type")
        if t == "None":
            v = None
        elif t in ("ffi.String", "runtime.String"):
            v = n["data"]
        elif t in ("ffi.Array", "Array"):
            v = [node(j) for j in n["data"]]
        elif t in ("ffi.Map", "Map"):
            items = n["data"]
            v = {node(items[k]): node(items[k + 1]) for k in range(0, len(items), 2)}
        elif t == "ffi.Tensor":
            v = decode_tensor(n["data"])
        elif t == "relax.expr.Constant":
            v = node(n["data"]["data"])
        elif t == "ir.GenericConst":  # TVM 0.27
            v = node(n["data"]["value"])
        elif t in ("ir.IntImm", "relax.ShapeStructInfo", "relax.expr.ShapeExpr", "relax.TensorStructInfo", "int",
                   "ir.PrimType", "relax.ShapeType", "relax.TensorType", "ir.Span", "ir.SourceName"):
            v = None  # implied by the tensor itself
        else:
            raise UnsupportedError(f"metadata: node type '{t}' is not supported")
        memo[i] = v
        return v

    result = node(root)
    if not isinstance(result, dict):
        raise ParseError("metadata: the root node is not a map")
    return result


__all__ = ["encode_constants", "decode_metadata", "metadata_header", "encode_tensor", "decode_tensor",
           "CONSTANT_KEY"]
