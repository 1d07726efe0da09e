"""The bookkeeping of TVM's paged KV cache (spec rules CALL.PAGEDKV.2 to CALL.PAGEDKV.7): sequences,
their lengths and page tables, the page pool's reference counts, and the forward phase.

A :class:`PagedState` holds no key/value data: it says which page slot each token of each sequence
lives in, which pages are free, and which batch the open forward appends. The cache object
(:mod:`relax_ref.interp.paged_kv_cache`) pairs it with a page pool of an array library; the reference
and relax_jax share this class, so the page accounting is written once.

Token ``t`` of a sequence lives in slot ``t % P`` of page ``pages[t // P]`` (``P`` the page size). A
forked child shares its parent's *full* pages before the fork position and copies the partial page;
a page is free when no sequence's table holds it. Every failed requirement is an ``op_runtime`` error
raised before the state changes.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..errors import OpRuntimeError

PREFIX = "vm.builtin."


def paged_error(fn: str, msg: str) -> OpRuntimeError:
    return OpRuntimeError(f"{PREFIX}{fn}: {msg}")


class PagedState:
    """Sequences (id -> length and page table), page reference counts and the open forward's batch
    (``forward``: a tuple of ``(seq_id, length before, appended)``, or None)."""

    def __init__(self, num_pages: int, page_size: int, max_batch: int, chunk: int) -> None:
        self.num_pages, self.page_size, self.max_batch, self.chunk = num_pages, page_size, max_batch, chunk
        self.lengths: Dict[int, int] = {}
        self.tables: Dict[int, List[int]] = {}
        self.refs = [0] * num_pages
        self.forward: Optional[Tuple[Tuple[int, int, int], ...]] = None

    # -- queries (CALL.PAGEDKV.6) -------------------------------------------------------------------------

    def available(self) -> int:
        return sum(1 for r in self.refs if r == 0)

    def total_length(self) -> int:
        return sum(self.lengths.values())

    def empty(self) -> bool:
        return not self.lengths

    def slots(self, seq: int, start: int, stop: int) -> np.ndarray:
        """The flat slots (``page * P + offset``) of the tokens ``[start, stop)`` of ``seq``."""
        t = np.arange(start, stop, dtype=np.int64)
        table = np.asarray(self.tables[seq] or [0], dtype=np.int64)
        return table[t // self.page_size] * self.page_size + t % self.page_size

    # -- helpers ----------------------------------------------------------------------------------------------

    def seq(self, fn: str, seq_id: int) -> int:
        if seq_id not in self.lengths:
            raise paged_error(fn, f"the sequence {seq_id} is not in the KV cache")
        return self.lengths[seq_id]

    def _outside_forward(self, fn: str) -> None:
        if self.forward is not None:
            raise paged_error(fn, "called between kv_state_begin_forward and kv_state_end_forward "
                                  "(the forward's sequences are fixed until it ends)")

    def _take(self, fn: str, n: int) -> List[int]:
        free = [p for p, r in enumerate(self.refs) if r == 0]
        if len(free) < n:
            raise paged_error(fn, f"the KV cache is full: {n} more pages are needed, {len(free)} are free "
                                  f"(of {self.num_pages})")
        for p in free[:n]:
            self.refs[p] = 1
        return free[:n]

    def _release(self, pages: Sequence[int]) -> None:
        for p in pages:
            self.refs[p] -= 1

    def _pages_for(self, length: int) -> int:
        return -(-length // self.page_size)

    # -- sequence management (CALL.PAGEDKV.3-5) -------------------------------------------------------------

    def add(self, seq_id: int) -> None:
        fn = "kv_state_add_sequence"
        self._outside_forward(fn)
        if seq_id in self.lengths:
            raise paged_error(fn, f"the sequence {seq_id} is already in the KV cache")
        self.lengths[seq_id], self.tables[seq_id] = 0, []

    def remove(self, seq_id: int) -> None:
        fn = "kv_state_remove_sequence"
        self._outside_forward(fn)
        self.seq(fn, seq_id)
        self._release(self.tables.pop(seq_id))
        del self.lengths[seq_id]

    def fork(self, parent: int, child: int, pos: int) -> Optional[Tuple[int, int, int]]:
        """CALL.PAGEDKV.4; returns ``(source page, new page, slots)`` when the partial page is copied."""
        fn = "kv_state_fork_sequence"
        self._outside_forward(fn)
        n = self.seq(fn, parent)
        if child in self.lengths:
            raise paged_error(fn, f"the child sequence {child} is already in the KV cache")
        if pos == -1:
            pos = n
        if not 0 <= pos <= n:
            raise paged_error(fn, f"the fork position {pos} is outside the parent's length {n} (or -1)")
        full, part = divmod(pos, self.page_size)
        shared = self.tables[parent][:full]
        copy = None
        new: List[int] = []
        if part:
            new = self._take(fn, 1)
            copy = (self.tables[parent][full], new[0], part)
        for p in shared:
            self.refs[p] += 1
        self.lengths[child], self.tables[child] = pos, shared + new
        return copy

    def popn(self, seq_id: int, n: int) -> Optional[Tuple[int, int, int]]:
        """CALL.PAGEDKV.5; returns a page copy like :meth:`fork` when the new last page was shared."""
        fn = "kv_state_popn"
        self._outside_forward(fn)
        length = self.seq(fn, seq_id)
        if not 0 <= n <= length:
            raise paged_error(fn, f"cannot pop {n} tokens of the sequence {seq_id} of length {length}")
        new_len = length - n
        table = self.tables[seq_id]
        keep = self._pages_for(new_len)
        copy = None
        if new_len % self.page_size and self.refs[table[keep - 1]] > 1:
            fresh = self._take(fn, 1)[0]         # the partial last page is shared: the sequence gets a copy
            copy = (table[keep - 1], fresh, new_len % self.page_size)
            self._release([table[keep - 1]])
            table[keep - 1] = fresh
        self._release(table[keep:])
        del table[keep:]
        self.lengths[seq_id] = new_len
        return copy

    def clear(self) -> None:
        self.lengths.clear()
        self.tables.clear()
        self.refs = [0] * self.num_pages
        self.forward = None

    # -- the forward phase (CALL.PAGEDKV.7) -----------------------------------------------------------------

    def begin(self, seq_ids: Sequence[int], lengths: Sequence[int]) -> None:
        fn = "kv_state_begin_forward"
        self._outside_forward(fn)
        k = len(seq_ids)
        if k != len(lengths):
            raise paged_error(fn, f"{k} sequence ids but {len(lengths)} append lengths")
        if not 1 <= k <= self.max_batch:
            raise paged_error(fn, f"a batch of {k} sequences (1 to {self.max_batch} allowed)")
        if k > 1 and len(set(seq_ids)) != k:
            raise paged_error(fn, f"a sequence appears twice in the batch {list(seq_ids)}")
        lens, tables = self.lengths, self.tables
        total = need = 0
        batch = []
        for s, n in zip(seq_ids, lengths):
            old = self.seq(fn, s)
            if n < 1:
                raise paged_error(fn, f"the append length {n} of the sequence {s} is not positive")
            total += n
            more = self._pages_for(old + n) - len(tables[s])
            need += more
            batch.append((s, old, n, more))
        if total > self.chunk:
            raise paged_error(fn, f"{total} tokens in one forward exceed the prefill chunk size {self.chunk}")
        pages = self._take(fn, need) if need else ()
        for s, old, n, more in batch:
            if more:
                tables[s] += pages[:more]
                pages = pages[more:]
            lens[s] = old + n
        self.forward = tuple([b[:3] for b in batch])

    def end(self) -> None:
        if self.forward is None:
            raise paged_error("kv_state_end_forward", "no forward is open (kv_state_begin_forward was not called)")
        self.forward = None

    def open_forward(self, fn: str) -> Tuple[Tuple[int, int, int], ...]:
        if self.forward is None:
            raise paged_error(fn, "no forward is open: call kv_state_begin_forward first")
        return self.forward

    def plan(self, fn: str) -> "ForwardPlan":
        """The open forward's token layout (CALL.PAGEDKV.8) as integer arrays."""
        batch = self.open_forward(fn)
        longest = max(old + n for _, old, n in batch)
        scratch = self.num_pages * self.page_size          # the pool's extra page: padding reads/writes
        hist = np.full((len(batch), longest), scratch, dtype=np.int64)
        write, pos, seq = [], [], []
        for b, (s, old, n) in enumerate(batch):
            hist[b, :old + n] = self.slots(s, 0, old + n)
            write.append(hist[b, old:old + n])
            pos.append(np.arange(old, old + n, dtype=np.int64))
            seq.append(np.full(n, b, dtype=np.int64))
        return ForwardPlan(np.concatenate(write), np.concatenate(pos), np.concatenate(seq), hist)


class ForwardPlan:
    """Where the open forward's ``T`` new tokens go: ``write`` (T,) their slots, ``pos`` (T,) their
    positions in their sequences, ``seq`` (T,) their batch index, ``hist`` (B, Lmax) the slots of each
    batch sequence's tokens (new ones included; padded with the scratch page's first slot)."""

    __slots__ = ("write", "pos", "seq", "hist")

    def __init__(self, write: np.ndarray, pos: np.ndarray, seq: np.ndarray, hist: np.ndarray) -> None:
        self.write, self.pos, self.seq, self.hist = write, pos, seq, hist

    @property
    def tokens(self) -> int:
        return int(self.write.shape[0])


__all__ = ["PagedState", "ForwardPlan", "paged_error", "PREFIX"]
