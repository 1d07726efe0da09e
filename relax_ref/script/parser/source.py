"""Source text, spans and error construction for the TVMScript parser (spec rule TEXT.2).

Every node the parser builds, and every :class:`~relax_ref.errors.ParseError` it raises, carries a
:class:`~relax_ref.errors.Span` with 1-based line and column numbers. Columns count characters (the
``ast`` module reports UTF-8 byte offsets; they are converted here). ``line_offset`` and
``col_offset`` shift positions so that a snippet cut out of a larger file (a decorated class) reports
positions in that file; ``full_text`` is then the whole file, so that the caret snippet of an error
shows the right line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import List, Optional

from ...errors import ParseError, Span


@dataclass
class Source:
    """A piece of TVMScript text and where it came from."""

    text: str
    file: str = "<string>"
    line_offset: int = 0
    col_offset: int = 0
    full_text: Optional[str] = None
    _lines: List[str] = field(default_factory=list, init=False, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.text, str):      # reported by the parser as a ParseError
            self._lines = []
            self.full_text = ""
            return
        self._lines = self.text.splitlines()
        if self.full_text is None:
            self.full_text = ("\n" * self.line_offset + self.text) if self.line_offset else self.text

    # -- positions ---------------------------------------------------------------------------
    def _char_col(self, line: int, byte_col: int) -> int:
        """Convert an ``ast`` UTF-8 byte column on (snippet) ``line`` to a character column."""
        if byte_col is None:
            return 0
        if 1 <= line <= len(self._lines):
            text = self._lines[line - 1]
            if not text.isascii():
                return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))
        return byte_col

    def span(self, node: Optional[ast.AST]) -> Optional[Span]:
        """The span of an ``ast`` node (None for None)."""
        if node is None or not hasattr(node, "lineno"):
            return None
        line = node.lineno
        end_line = getattr(node, "end_lineno", None) or line
        col = self._char_col(line, node.col_offset)
        end_col = self._char_col(end_line, getattr(node, "end_col_offset", None) or node.col_offset)
        return Span(self.file, line + self.line_offset, col + 1 + self.col_offset,
                    end_line + self.line_offset, end_col + 1 + self.col_offset, self.full_text)

    def span_at(self, line: int, col: int) -> Span:
        """A point span at a 1-based snippet line and 0-based character column."""
        return Span(self.file, line + self.line_offset, col + 1 + self.col_offset,
                    line + self.line_offset, col + 2 + self.col_offset, self.full_text)

    def error(self, node: Optional[ast.AST], message: str, **context) -> ParseError:
        """A ParseError located at ``node`` (use as ``raise src.error(node, "...")``)."""
        return ParseError(message, self.span(node), **context)

    def sub_source(self, text: str, anchor: ast.AST) -> "Source":
        """A Source for a string literal's contents (a string dim such as ``"n * 2"``).

        Positions inside the string map to the literal's own position: exactly when the literal
        is a plain one-line string, otherwise to its first character.
        """
        line = anchor.lineno
        col = self._char_col(line, anchor.col_offset)
        raw_line = self._lines[line - 1] if 1 <= line <= len(self._lines) else ""
        quote_col = col
        inner = col + 1
        if quote_col < len(raw_line) and raw_line[quote_col] in "'\"" and \
                raw_line[quote_col + 1: quote_col + 1 + len(text)] == text:
            inner = quote_col + 1
        return Source(text, self.file, line - 1 + self.line_offset, inner + self.col_offset,
                      self.full_text)


def parse_python(src: Source, mode: str = "exec") -> ast.AST:
    """``ast.parse`` with every failure turned into a located ParseError (TEXT.SAFE.1).

    Only the parser of the Python grammar runs; nothing is compiled or executed.
    """
    try:
        return ast.parse(src.text, filename=src.file, mode=mode)
    except SyntaxError as e:
        line = e.lineno or 1
        col = max((e.offset or 1) - 1, 0)
        raise ParseError(f"invalid syntax: {e.msg}", src.span_at(line, col)) from None
    except (RecursionError, MemoryError):
        raise ParseError("the text is nested too deeply to be parsed", src.span_at(1, 0)) from None
    except ValueError as e:  # e.g. an integer literal beyond Python's digit limit, NUL bytes
        raise ParseError(f"invalid text: {e}", src.span_at(1, 0)) from None


__all__ = ["Source", "parse_python"]
