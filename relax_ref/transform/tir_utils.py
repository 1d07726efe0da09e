"""TensorIR rewriting helpers for the passes (PASS.TIRUTIL.*).

* :func:`renew_defs` -- TVM's ``s_tir::RenewDefs``: a copy of a PrimFunc in which every variable and
  every buffer is a fresh object (same names), so that two copies can live in one function
  (PASS.TIRUTIL.1).
* :class:`TIRRewriter` -- a deep rebuild of statements and expressions with a variable map (to
  arbitrary expressions) and a buffer map; used by :func:`renew_defs` and by FuseTIR's buffer
  substitution (PASS.TIRUTIL.2).
"""

from __future__ import annotations

from dataclasses import fields, is_dataclass, replace
from typing import Dict, Optional

from ..ir import prim_expr as P
from ..ir import tir


class TIRRewriter:
    """Rebuild TIR bottom-up. ``var_map`` maps PrimVars to expressions; ``buffer_map`` maps buffers
    (by identity) to buffers. With ``renew=True`` every variable and buffer not in the maps is
    replaced by a fresh copy on first sight (memoized)."""

    def __init__(self, var_map: Optional[Dict[P.PrimVar, P.PrimExpr]] = None,
                 buffer_map: Optional[Dict[int, tir.Buffer]] = None, renew: bool = False) -> None:
        self.var_map: Dict[P.PrimVar, P.PrimExpr] = dict(var_map or {})
        self.buffer_map: Dict[int, tir.Buffer] = dict(buffer_map or {})
        self.renew = renew
        self._keep: list = []  # keeps the keys of buffer_map alive (they are ids)

    # -- variables and buffers ----------------------------------------------------------------------
    def var(self, v: P.PrimVar) -> P.PrimExpr:
        r = self.var_map.get(v)
        if r is not None:
            return r
        if self.renew:
            nv = P.PrimVar(v.name, v.dtype)
            self.var_map[v] = nv
            return nv
        return v

    def buffer(self, b: tir.Buffer) -> tir.Buffer:
        r = self.buffer_map.get(id(b))
        if r is not None:
            return r
        if not self.renew:
            return b
        nb = self.copy_buffer(b)
        return nb

    def copy_buffer(self, b: tir.Buffer, **changes) -> tir.Buffer:
        """A new buffer like ``b`` with its expressions rewritten (and a fresh data variable when
        renewing), registered as ``b``'s replacement."""
        data = b.data
        if self.renew and b.data is not None:
            mapped = self.var_map.get(b.data)
            if isinstance(mapped, P.PrimVar):
                data = mapped
            else:
                data = P.PrimVar(b.data.name, b.data.dtype)
                self.var_map[b.data] = data
        new = tir.Buffer(
            changes.get("name", b.name),
            tuple(self.expr(x) for x in changes.get("shape", b.shape)),
            b.dtype, data,
            tuple(self.expr(x) for x in b.strides),
            None if b.elem_offset is None else self.expr(b.elem_offset),
            b.scope, b.axis_separators, b.align, b.offset_factor,
        )
        self._keep.append(b)
        self.buffer_map[id(b)] = new
        return new

    # -- expressions --------------------------------------------------------------------------------
    def expr(self, e):
        if e is None:
            return None
        if isinstance(e, P.PrimVar):
            return self.var(e)
        if isinstance(e, (P.IntImm, P.FloatImm, P.PrimStringImm)):
            return e
        if isinstance(e, tir.BufferLoad):
            return tir.BufferLoad(self.buffer(e.buffer), tuple(self.expr(i) for i in e.indices), e.dtype)
        if isinstance(e, P.Let):
            v = self.var(e.var)
            return P.Let(v, self.expr(e.value), self.expr(e.body), e.dtype)
        if isinstance(e, P.PrimExpr) and is_dataclass(e):
            changes = {}
            for f in fields(e):
                x = getattr(e, f.name)
                if isinstance(x, P.PrimExpr):
                    changes[f.name] = self.expr(x)
                elif isinstance(x, tuple) and x and isinstance(x[0], P.PrimExpr):
                    changes[f.name] = tuple(self.expr(y) for y in x)
            return replace(e, **changes) if changes else e
        return e

    # -- statements ---------------------------------------------------------------------------------
    def region(self, r: tir.BufferRegion) -> tir.BufferRegion:
        return tir.BufferRegion(self.buffer(r.buffer),
                                tuple(tir.Range(self.expr(x.min), self.expr(x.extent)) for x in r.region))

    def alloc(self, b: tir.Buffer) -> tir.Buffer:
        """A buffer defined by an allocation: renewed, or with its shape rewritten."""
        r = self.buffer_map.get(id(b))
        if r is not None:
            return r
        if self.renew:
            return self.copy_buffer(b)
        shape = tuple(self.expr(s) for s in b.shape)
        strides = tuple(self.expr(s) for s in b.strides)
        off = None if b.elem_offset is None else self.expr(b.elem_offset)
        if all(x is y for x, y in zip(shape, b.shape)) and all(x is y for x, y in zip(strides, b.strides)) \
                and off is b.elem_offset:
            return b
        new = replace(b, shape=shape, strides=strides, elem_offset=off)
        self._keep.append(b)
        self.buffer_map[id(b)] = new
        return new

    def block(self, b: tir.Block) -> tir.Block:
        iter_vars = tuple(tir.IterVar(self.var(iv.var), tir.Range(self.expr(iv.dom.min), self.expr(iv.dom.extent)),
                                      iv.iter_type) for iv in b.iter_vars)
        allocs = tuple(self.alloc(x) for x in b.alloc_buffers)
        matches = tuple(tir.MatchBufferRegion(self.alloc(m.buffer), self.region(m.source)) for m in b.match_buffers)
        reads = self.union_regions(tuple(self.region(r) for r in b.reads))
        writes = self.union_regions(tuple(self.region(r) for r in b.writes))
        return tir.Block(name=b.name, iter_vars=iter_vars, reads=reads, writes=writes, body=self.stmt(b.body),
                         init=self.stmt(b.init), alloc_buffers=allocs, match_buffers=matches,
                         annotations=b.annotations, span=b.span)

    @staticmethod
    def union_regions(regions):
        """Keep the first region of each buffer (TVM's ``UnionAccessRegion``)."""
        seen = set()
        out = []
        for r in regions:
            if id(r.buffer) in seen:
                continue
            seen.add(id(r.buffer))
            out.append(r)
        return tuple(out)

    def stmt(self, s: Optional[tir.Stmt]) -> Optional[tir.Stmt]:
        if s is None:
            return None
        if isinstance(s, tir.SeqStmt):
            return tir.SeqStmt(tuple(self.stmt(c) for c in s.seq), span=s.span)
        if isinstance(s, tir.BufferStore):
            return tir.BufferStore(self.buffer(s.buffer), self.expr(s.value), tuple(self.expr(i) for i in s.indices),
                                   span=s.span)
        if isinstance(s, tir.Block):
            return self.block(s)
        if isinstance(s, tir.BlockRealize):
            return tir.BlockRealize(tuple(self.expr(v) for v in s.iter_values), self.expr(s.predicate),
                                    self.block(s.block), span=s.span)
        if isinstance(s, tir.For):
            v = self.var(s.loop_var)
            return tir.For(v, self.expr(s.min), self.expr(s.extent), s.kind, self.stmt(s.body), s.thread_binding,
                           s.annotations, span=s.span)
        if isinstance(s, tir.LetStmt):
            value = self.expr(s.value)
            return tir.LetStmt(self.var(s.var), value, self.stmt(s.body), span=s.span)
        if isinstance(s, tir.Bind):
            value = self.expr(s.value)
            return tir.Bind(self.var(s.var), value, span=s.span)
        if isinstance(s, tir.AllocBuffer):
            return tir.AllocBuffer(self.alloc(s.buffer), span=s.span)
        if isinstance(s, tir.DeclBuffer):
            return tir.DeclBuffer(self.alloc(s.buffer), self.stmt(s.body), span=s.span)
        if isinstance(s, tir.Allocate):
            return tir.Allocate(self.var(s.buffer_var), s.dtype, tuple(self.expr(e) for e in s.extents),
                                self.expr(s.condition), self.stmt(s.body), s.scope, span=s.span)
        if isinstance(s, tir.Evaluate):
            return tir.Evaluate(self.expr(s.value), span=s.span)
        if isinstance(s, tir.AssertStmt):
            return tir.AssertStmt(self.expr(s.condition), s.message, self.stmt(s.body), span=s.span)
        if isinstance(s, tir.IfThenElse):
            return tir.IfThenElse(self.expr(s.condition), self.stmt(s.then_case), self.stmt(s.else_case), span=s.span)
        if isinstance(s, tir.While):
            return tir.While(self.expr(s.condition), self.stmt(s.body), span=s.span)
        raise TypeError(f"TIRRewriter: unknown statement {type(s).__name__}")


def renew_defs(func: tir.PrimFunc) -> tir.PrimFunc:
    """(PASS.TIRUTIL.1) A copy of ``func`` with fresh variables and buffers."""
    rw = TIRRewriter(renew=True)
    params = tuple(rw.var(p) for p in func.params)
    bmap = tuple((rw.var(p), rw.alloc(b)) for p, b in func.buffer_map)
    body = rw.stmt(func.body)
    return tir.PrimFunc(params, body, bmap, func.ret_type, attrs=func.attrs, span=func.span)


def split_leading_asserts(body: tir.Stmt):
    """``(asserts, rest)``: the assertions a function body starts with -- ``AssertStmt``s wrapping the
    rest, or flat ones leading a ``SeqStmt`` -- as ``(condition, message, span)`` triples, and the
    statement they guard. relax-ref's legalizations guard some kernels this way (TVM's do not)."""
    asserts = []
    while True:
        if isinstance(body, tir.AssertStmt) and body.body is not None:
            asserts.append((body.condition, body.message, body.span))
            body = body.body
            continue
        if isinstance(body, tir.SeqStmt) and len(body.seq) >= 2 and isinstance(body.seq[0], tir.AssertStmt) \
                and body.seq[0].body is None:
            a = body.seq[0]
            asserts.append((a.condition, a.message, a.span))
            rest = body.seq[1:]
            body = rest[0] if len(rest) == 1 else tir.SeqStmt(tuple(rest), span=body.span)
            continue
        return asserts, body


def flatten_seq(stmts) -> tir.Stmt:
    """TVM's ``SeqStmt::Flatten``: nested sequences spliced; a single statement stays itself."""
    out = []

    def add(s):
        if isinstance(s, tir.SeqStmt):
            for c in s.seq:
                add(c)
        elif s is not None:
            out.append(s)

    for s in stmts:
        add(s)
    return out[0] if len(out) == 1 else tir.SeqStmt(tuple(out))


class BlockNameDeduplicator:
    """TVM's ``SBlockNameDeduplicator`` (FuseTIR): the first block of a name keeps it; later ones
    get the trailing number incremented (``compute`` -> ``compute1``, ``T_add1`` -> ``T_add2``)."""

    def __init__(self) -> None:
        self.names: set = set()

    def unique(self, name: str) -> str:
        if name not in self.names:
            self.names.add(name)
            return name
        base_len = len(name)
        while base_len > 0 and name[base_len - 1].isdigit():
            base_len -= 1
        if base_len < len(name):
            base, counter = name[:base_len], int(name[base_len:]) + 1
        else:
            base, counter = name, 1
        while f"{base}{counter}" in self.names:
            counter += 1
        cand = f"{base}{counter}"
        self.names.add(cand)
        return cand

    def stmt(self, s: Optional[tir.Stmt]) -> Optional[tir.Stmt]:
        """Post-order, like TVM's StmtMutator (inner blocks are renamed first)."""
        if s is None:
            return None
        if isinstance(s, tir.SeqStmt):
            return tir.SeqStmt(tuple(self.stmt(c) for c in s.seq), span=s.span)
        if isinstance(s, tir.Block):
            init = self.stmt(s.init)
            body = self.stmt(s.body)
            return replace(s, body=body, init=init, name=self.unique(s.name))
        changes = {}
        for f in fields(s):
            x = getattr(s, f.name)
            if isinstance(x, tir.Stmt):
                changes[f.name] = self.stmt(x)
        return replace(s, **changes) if changes else s


__all__ = ["TIRRewriter", "renew_defs", "split_leading_asserts", "flatten_seq", "BlockNameDeduplicator"]
