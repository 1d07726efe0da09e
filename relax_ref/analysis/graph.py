"""Graphs given as mappings from a node to the nodes it points to."""

from __future__ import annotations

from typing import Dict, Hashable, Iterable, List, Mapping, Set


def strongly_connected_components(graph: Mapping[Hashable, Iterable[Hashable]]) -> List[List[Hashable]]:
    """The strongly connected components of ``graph`` (Tarjan's algorithm, iterative), each in the
    order its nodes leave the stack; nodes are visited in the mapping's order, successors in sorted
    order, and a successor that is not a key of ``graph`` is ignored."""
    index: Dict[Hashable, int] = {}
    low: Dict[Hashable, int] = {}
    stack: List[Hashable] = []
    on_stack: Set[Hashable] = set()
    out: List[List[Hashable]] = []

    def enter(v: Hashable) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)

    for root in graph:
        if root in index:
            continue
        enter(root)
        work = [(root, iter(sorted(graph[root])))]
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in graph:
                    continue
                if nxt not in index:
                    enter(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                elif nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    w = stack.pop()
                    on_stack.discard(w)
                    comp.append(w)
                    if w == node:
                        break
                out.append(comp)
    return out


__all__ = ["strongly_connected_components"]
