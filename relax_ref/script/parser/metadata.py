"""Decoding of TVM's metadata header ``metadata = tvm.ir.load_json(\"\"\"...\"\"\")`` (TEXT.CONST.3-4).

``mod.script(show_meta=True)`` prefixes the text with TVM's object-graph JSON, and constants that are
not scalars are referenced as ``metadata["relax.expr.Constant"][i]``. The JSON is decoded here *as
data* -- no TVM, no object construction beyond what is listed below:

* the graph: ``{"root_index": r, "nodes": [{"type": ..., "data": ...}, ...]}``; references between
  nodes are indices. The root is a ``ffi.Map`` from key strings to ``ffi.Array``s.
* node types: ``ffi.String``, ``None``, ``ffi.Array``, ``ffi.Map`` (flat ``[k0, v0, k1, v1, ...]``),
  ``ir.IntImm``, ``ir.FloatImm``, ``ffi.Tensor`` and ``relax.expr.Constant`` (whose ``data`` is the
  tensor; TVM 0.27 writes ``ir.GenericConst`` with the tensor in ``value``, under the key
  ``metadata["ir.GenericConst"]``). Other node types are decoded only if an entry that is used refers to them, and then
  give a ParseError.
* ``ffi.Tensor`` data is base64 of TVM's tensor serialisation: magic ``0xDD5E40F096B4A13F`` (u64),
  reserved (u64), device type and id (i32, i32), ndim (i32), dtype (code u8, bits u8, lanes u16),
  shape (ndim x i64), byte size (i64), then the little-endian elements. DLPack dtype codes: 0 int,
  1 uint, 2 float, 4 bfloat, 6 bool (1 byte per element), 10 float8_e4m3fn, 12 float8_e5m2.
"""

from __future__ import annotations

import base64
import binascii
import json
import struct
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from ...errors import ParseError, Span
from ...ir import dtype as _dt
from ...ir import expr as rx
from ...ir import prim_expr as P

TENSOR_MAGIC = 0xDD5E40F096B4A13F

_CODES = {
    (0, 8): "int8", (0, 16): "int16", (0, 32): "int32", (0, 64): "int64",
    (1, 8): "uint8", (1, 16): "uint16", (1, 32): "uint32", (1, 64): "uint64", (1, 1): "bool",
    (2, 16): "float16", (2, 32): "float32", (2, 64): "float64",
    (4, 16): "bfloat16", (6, 8): "bool", (6, 1): "bool",
    (10, 8): "float8_e4m3fn", (12, 8): "float8_e5m2",
}


def decode_tensor(b64: str, span: Optional[Span]) -> np.ndarray:
    """Decode one base64 ``ffi.Tensor`` payload into a numpy array (read-only copy)."""
    try:
        raw = base64.b64decode(b64, validate=False)
    except (binascii.Error, ValueError):
        raise ParseError("metadata: a tensor is not valid base64", span) from None
    try:
        magic, _reserved, _dev_type, _dev_id, ndim, code, bits, lanes = struct.unpack_from("<QQiiiBBH", raw, 0)
        off = struct.calcsize("<QQiiiBBH")
        if magic != TENSOR_MAGIC:
            raise ParseError("metadata: a tensor does not start with TVM's tensor magic number", span)
        if not 0 <= ndim <= 64:
            raise ParseError(f"metadata: invalid tensor rank {ndim}", span)
        shape = struct.unpack_from(f"<{ndim}q", raw, off)
        off += 8 * ndim
        (nbytes,) = struct.unpack_from("<q", raw, off)
        off += 8
    except struct.error:
        raise ParseError("metadata: a tensor payload is truncated", span) from None
    if lanes != 1:
        raise ParseError(f"metadata: vector tensors (lanes={lanes}) are not supported", span)
    dtype = _CODES.get((code, bits))
    if dtype is None:
        raise ParseError(f"metadata: unsupported tensor dtype code {code} with {bits} bits", span)
    if any(d < 0 for d in shape):
        raise ParseError("metadata: negative tensor dimension", span)
    count = 1
    for d in shape:
        count *= d
    item = 1 if dtype == "bool" else max(bits // 8, 1)
    if nbytes != count * item or len(raw) < off + nbytes:
        raise ParseError(f"metadata: tensor byte size {nbytes} does not match shape {tuple(shape)} of {dtype}",
                         span)
    data = raw[off: off + nbytes]
    if dtype == "bool":
        arr = np.frombuffer(data, dtype=np.uint8) != 0
    else:
        npdt = _dt.to_numpy(dtype).newbyteorder("<")
        arr = np.frombuffer(data, dtype=npdt).astype(_dt.to_numpy(dtype))
    arr = np.array(arr.reshape(shape))
    arr.setflags(write=False)
    return arr


class _Graph:
    def __init__(self, nodes: List[Any], span: Optional[Span]) -> None:
        self.nodes = nodes
        self.span = span
        self.memo: Dict[int, Any] = {}
        self.active: set = set()

    def get(self, ref: Any) -> Any:
        if isinstance(ref, bool) or not isinstance(ref, int) or not 0 <= ref < len(self.nodes):
            raise ParseError(f"metadata: invalid node reference {ref!r}", self.span)
        if ref in self.memo:
            return self.memo[ref]
        if ref in self.active:
            raise ParseError("metadata: cyclic node references", self.span)
        self.active.add(ref)
        try:
            v = self._decode(self.nodes[ref])
        except (KeyError, TypeError, ValueError, OverflowError) as e:
            raise ParseError(f"metadata: malformed node {ref} ({e})", self.span) from None
        finally:
            self.active.discard(ref)
        self.memo[ref] = v
        return v

    def _decode(self, node: Any) -> Any:
        if not isinstance(node, dict) or "type" not in node:
            raise ParseError("metadata: malformed node (expected {\"type\": ..., \"data\": ...})", self.span)
        t, d = node["type"], node.get("data")
        if t == "None":
            return None
        if t == "ffi.String":
            if not isinstance(d, str):
                raise ParseError("metadata: malformed string node", self.span)
            return d
        if t == "ffi.Array":
            if not isinstance(d, list):
                raise ParseError("metadata: malformed array node", self.span)
            return tuple(self.get(x) for x in d)
        if t == "ffi.Map":
            if not isinstance(d, list) or len(d) % 2:
                raise ParseError("metadata: malformed map node", self.span)
            out = {}
            for k, v in zip(d[0::2], d[1::2]):
                key = self.get(k)
                if not isinstance(key, str):
                    raise ParseError("metadata: map keys must be strings", self.span)
                out[key] = self.get(v)
            return out
        if t == "ir.IntImm":
            return P.IntImm(int(d["value"]), str(d["dtype"]))
        if t == "ir.FloatImm":
            return P.FloatImm(float(d["value"]), str(d["dtype"]))
        if t == "ffi.Tensor":
            if not isinstance(d, str):
                raise ParseError("metadata: malformed tensor node", self.span)
            return decode_tensor(d, self.span)
        if t in ("relax.expr.Constant", "ir.GenericConst"):
            field = "data" if t == "relax.expr.Constant" else "value"  # tvm-0.25 / tvm-0.27 (TEXT.DIALECT.3)
            if not isinstance(d, dict) or field not in d:
                raise ParseError(f"metadata: malformed {t} node", self.span)
            arr = self.get(d[field])
            if not isinstance(arr, np.ndarray):
                raise ParseError("metadata: a constant's data is not a tensor", self.span)
            return rx.Constant(arr, span=self.span)
        raise ParseError(f"metadata: unsupported node type '{t}'", self.span)


def decode_metadata(text: str, span: Optional[Span]) -> Dict[str, Tuple[Any, ...]]:
    """The tables of a metadata header: key (e.g. ``"relax.expr.Constant"``) -> decoded entries."""
    try:
        doc = json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ParseError(f"metadata: the header is not valid JSON ({e})", span) from None
    if not isinstance(doc, dict) or "nodes" not in doc or not isinstance(doc["nodes"], list):
        raise ParseError("metadata: unrecognised format (expected TVM's {\"root_index\", \"nodes\"} JSON)", span)
    root = doc.get("root_index", doc.get("root"))
    g = _Graph(doc["nodes"], span)
    top_node = doc["nodes"][root] if isinstance(root, int) and 0 <= root < len(doc["nodes"]) else None
    if not isinstance(top_node, dict) or top_node.get("type") != "ffi.Map":
        raise ParseError("metadata: the root of the header must be a map", span)
    d = top_node.get("data")
    if not isinstance(d, list) or len(d) % 2:
        raise ParseError("metadata: malformed root map", span)
    tables: Dict[str, Tuple[Any, ...]] = {}
    for k, v in zip(d[0::2], d[1::2]):
        key = g.get(k)
        if not isinstance(key, str):
            raise ParseError("metadata: root keys must be strings", span)
        entries = g.nodes[v] if isinstance(v, int) and 0 <= v < len(g.nodes) else None
        if not isinstance(entries, dict) or entries.get("type") != "ffi.Array" or \
                not isinstance(entries.get("data"), list):
            raise ParseError(f"metadata: entry '{key}' is not an array", span)
        tables[key] = _LazyList(g, tuple(entries["data"]))
    return tables


class _LazyList(tuple):
    """Entries decoded on first access (an unused entry of an unsupported type is not an error)."""

    def __new__(cls, graph: _Graph, refs: Tuple[int, ...]):
        self = super().__new__(cls, refs)
        self._graph = graph
        return self

    def __getitem__(self, i):
        return self._graph.get(tuple.__getitem__(self, i))

    def __iter__(self):
        for i in range(len(self)):
            yield self[i]


__all__ = ["decode_metadata", "decode_tensor", "TENSOR_MAGIC"]
