"""Render the spec as one browsable HTML page, checking every link.

Usage::

    python spec/tools/render.py                 # writes spec/_build/index.html
    python spec/tools/render.py -o out.html     # another output path
    python spec/tools/render.py --check         # check only, write nothing

The page holds every chapter (``spec/NN-*.md``), the operator index and pages (``spec/ops/``) and the
page template, with a table of contents, an anchor per rule ID (``#WF.SYM.1``) and an index of rules.

Checks (each failure is reported as ``file:line: message`` and makes the exit status 1):

* a link to another spec file must name an existing file; its fragment must be a heading of that file
  (GitHub's slug of the heading text) or a rule ID defined in that file;
* a link to a file outside the spec must name an existing file;
* every rule ID mentioned in prose (outside code spans and blocks) must be defined somewhere;
* a rule may be defined only once, and a definition's tag must be ``{definition}`` or
  ``{informative}``.

Markdown is parsed with ``markdown-it-py`` (CommonMark plus tables and strikethrough).
"""

from __future__ import annotations

import argparse
import html
import os
import re
import sys
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence, Tuple

from markdown_it import MarkdownIt
from markdown_it.token import Token

try:  # imported as part of a package
    from . import rule_ids as _ids
except ImportError:  # run as a script, or loaded from its directory
    import rule_ids as _ids  # type: ignore[no-redef]

_SCHEME_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TAG_RE = re.compile(r"^(\s*)\{([a-z-]+)\}")
_LABEL_RE = re.compile(r"^\((?P<id>.+)\)$")


@dataclass
class Doc:
    """One Markdown file of the spec."""

    path: Path
    rel: str          # path relative to the repository root, for messages
    docid: str        # HTML id of the file's section
    tokens: List[Token] = field(default_factory=list)
    slugs: Dict[str, str] = field(default_factory=dict)   # GitHub slug -> HTML id
    title: str = ""
    toc: List[Tuple[int, str, str]] = field(default_factory=list)  # (level, text, html id)
    sections: Dict[str, Tuple[int, int]] = field(default_factory=dict)  # slug -> (first, last) line


@dataclass
class RenderResult:
    html: str
    errors: List[str]
    docs: List[str]
    rules: int

    @property
    def ok(self) -> bool:
        return not self.errors


# ---------------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------------


def github_slug(text: str) -> str:
    """The anchor GitHub gives a heading: lower case, punctuation other than ``-`` and ``_`` removed,
    spaces replaced by ``-``."""
    out = []
    for ch in text.strip().lower():
        if ch in "-_" or ch.isalnum():
            out.append(ch)
        elif ch == " ":
            out.append("-")
        elif unicodedata.category(ch).startswith(("L", "N")):
            out.append(ch)
    return "".join(out)


def _docid(rel_to_spec: Path) -> str:
    return rel_to_spec.with_suffix("").as_posix().replace("/", "-")


def _inline_text(token: Token) -> str:
    """Plain text of an inline token (text and code spans, markup dropped)."""
    parts = []
    for child in token.children or ():
        if child.type in ("text", "code_inline"):
            parts.append(child.content)
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
    return "".join(parts)


def _html_token(content: str) -> Token:
    tok = Token("html_inline", "", 0)
    tok.content = content
    return tok


def _text_token(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


def _make_parser() -> MarkdownIt:
    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


# ---------------------------------------------------------------------------------------------------
# The renderer
# ---------------------------------------------------------------------------------------------------


class Renderer:
    def __init__(self, spec_dir: Path, out_path: Optional[Path]) -> None:
        self.spec_dir = Path(spec_dir).resolve()
        self.root = self.spec_dir.parent
        self.out_dir = (Path(out_path).resolve().parent if out_path is not None
                        else self.spec_dir / "_build")
        self.md = _make_parser()
        self.errors: List[str] = []
        self.docs: List[Doc] = []
        self.by_path: Dict[Path, Doc] = {}
        self.defs = _ids.parse_definitions(self.spec_dir)
        self.rule_doc: Dict[str, str] = {}

    # -- pass 1 ------------------------------------------------------------------------------------
    def load(self) -> None:
        for path in _ids.spec_files(self.spec_dir):
            rel_spec = path.resolve().relative_to(self.spec_dir)
            doc = Doc(path=path.resolve(), rel=_ids._rel(path, self.root), docid=_docid(rel_spec))
            doc.tokens = self.md.parse(path.read_text(encoding="utf-8"))
            self._collect_headings(doc)
            self.docs.append(doc)
            self.by_path[doc.path] = doc
        for rule in self.defs.rules.values():
            path = (self.root / rule.file).resolve()
            doc = self.by_path.get(path)
            if doc is not None:
                self.rule_doc[rule.id] = doc.docid
        for first, again in self.defs.duplicates:
            self.errors.append(f"{again.file}:{again.line}: rule {again.id} is already defined at "
                               f"{first.file}:{first.line}")
        for rule in self.defs.bad_tags:
            self.errors.append(f"{rule.file}:{rule.line}: rule {rule.id} has an unknown tag "
                               f"(allowed: {', '.join(sorted(_ids.TAGS))})")

    def _collect_headings(self, doc: Doc) -> None:
        counts: Dict[str, int] = {}
        toks = doc.tokens
        open_sections: List[Tuple[int, str, int]] = []  # (level, slug, first line)
        last_line = max((t.map[1] for t in toks if t.map), default=0)
        for i, tok in enumerate(toks):
            if tok.type != "heading_open":
                continue
            text = _inline_text(toks[i + 1])
            slug = github_slug(text)
            n = counts.get(slug, 0)
            counts[slug] = n + 1
            unique = slug if n == 0 else f"{slug}-{n}"
            level = int(tok.tag[1])
            start = tok.map[0] + 1 if tok.map else 0
            while open_sections and open_sections[-1][0] >= level:
                lvl, sl, first = open_sections.pop()
                doc.sections[sl] = (first, start - 1)
            open_sections.append((level, unique, start))
            hid = doc.docid if (level == 1 and not doc.title) else f"{doc.docid}--{unique}"
            if level == 1 and not doc.title:
                doc.title = text
            doc.slugs[unique] = hid
            tok.attrSet("id", hid)
            if level <= 2:
                doc.toc.append((level, text, hid))
        for lvl, sl, first in open_sections:
            doc.sections[sl] = (first, last_line)

    # -- pass 2 ------------------------------------------------------------------------------------
    def _err(self, doc: Doc, line: Optional[int], msg: str) -> None:
        self.errors.append(f"{doc.rel}:{line or 0}: {msg}")

    def resolve_link(self, doc: Doc, href: str, line: Optional[int]) -> str:
        if _SCHEME_RE.match(href) or href.startswith("//"):
            return href
        path_part, _, frag = href.partition("#")
        if path_part:
            target = (doc.path.parent / path_part).resolve()
        else:
            target = doc.path
        tdoc = self.by_path.get(target)
        if tdoc is None:
            if not target.exists():
                self._err(doc, line, f"broken link '{href}': no such file")
                return href
            try:
                target.relative_to(self.spec_dir)
                inside = True
            except ValueError:
                inside = False
            if inside and target.suffix == ".md":
                self._err(doc, line, f"link '{href}' names a Markdown file that is not part of the spec")
                return href
            rel = os.path.relpath(target, self.out_dir)
            return rel + (f"#{frag}" if frag else "")
        if not frag:
            return f"#{tdoc.docid}"
        if frag in self.defs.rules:
            where = self.rule_doc.get(frag)
            if where != tdoc.docid:
                self._err(doc, line, f"link '{href}': rule {frag} is not defined in {tdoc.rel}")
            return f"#{frag}"
        if frag in tdoc.slugs:
            return f"#{tdoc.slugs[frag]}"
        self._err(doc, line, f"broken link '{href}': {tdoc.rel} has no heading with anchor '{frag}'")
        return href

    def _check_id(self, doc: Doc, rule_id: str, wild: bool, line: Optional[int]) -> bool:
        cit = _ids.Citation(rule_id, doc.rel, line or 0, wild, "spec")
        if _ids.resolves(cit, self.defs.rules):
            return True
        self._err(doc, line, f"reference to undefined rule {rule_id}{'.*' if wild else ''}")
        return False

    def _link_ids(self, doc: Doc, text: str, line: Optional[int]) -> List[Token]:
        """Split a text token, turning rule IDs into links."""
        out: List[Token] = []
        pos = 0
        for m in _ids.ID_RE.finditer(text):
            rule_id, wild = m.group("id"), m.group("wild") is not None
            ok = self._check_id(doc, rule_id, wild, line)
            if m.start() > pos:
                out.append(_text_token(text[pos:m.start()]))
            shown = html.escape(m.group(0))
            if ok and not wild:
                out.append(_html_token(f'<a class="rule-ref" href="#{html.escape(rule_id)}">{shown}</a>'))
            else:
                out.append(_html_token(f'<span class="rule-ref">{shown}</span>'))
            pos = m.end()
        if pos < len(text):
            out.append(_text_token(text[pos:]))
        return out

    def _check_link_text(self, doc: Doc, href: str, children: List[Token], i: int,
                         line: Optional[int]) -> bool:
        """A link whose text is exactly a rule ID must point into the file (and the section, when it
        names one) that defines the rule. Returns whether the link is such a valid rule link."""
        if (i + 2 >= len(children) or children[i + 1].type != "text"
                or children[i + 2].type != "link_close" or _SCHEME_RE.match(href)):
            return False
        rule_id = children[i + 1].content.strip()
        if rule_id not in self.defs.rules:
            return False
        path_part = href.partition("#")[0]
        target = (doc.path.parent / path_part).resolve() if path_part else doc.path
        tdoc = self.by_path.get(target)
        if tdoc is None:
            return False
        rule = self.defs.rules[rule_id]
        if self.rule_doc.get(rule_id) != tdoc.docid:
            self._err(doc, line, f"link text {rule_id} points to {tdoc.rel}, but the rule is defined in "
                                 f"{rule.file}")
            return False
        frag = href.partition("#")[2]
        if frag and frag in tdoc.sections:
            first, last = tdoc.sections[frag]
            if not first <= rule.line <= last:
                self._err(doc, line, f"link text {rule_id} points to section '{frag}' of {tdoc.rel}, "
                                     f"but the rule is defined at line {rule.line}, outside it")
                return False
        return True

    def _transform_inline(self, doc: Doc, tok: Token) -> None:
        line = tok.map[0] + 1 if tok.map else None
        children = tok.children or []
        out: List[Token] = []
        link_depth = 0
        i = 0
        while i < len(children):
            c = children[i]
            # rule definition label: **(ID)** [{tag}]
            if (c.type == "strong_open" and i + 2 < len(children) and children[i + 1].type == "text"
                    and children[i + 2].type == "strong_close"):
                m = _LABEL_RE.match(children[i + 1].content)
                if m and _ids.ID_RE.fullmatch(m.group("id")) and m.group("id") in self.defs.rules:
                    rid = html.escape(m.group("id"))
                    out.append(_html_token(
                        f'<a class="rule-def" id="{rid}" href="#{rid}">({rid})</a>'))
                    i += 3
                    if i < len(children) and children[i].type == "text":
                        tm = _TAG_RE.match(children[i].content)
                        if tm:
                            out.append(_html_token(f' <span class="rule-tag">{html.escape(tm.group(2))}</span>'))
                            rest = children[i].content[tm.end():]
                            children[i] = _text_token(rest)
                    continue
            if c.type == "link_open":
                href = str(c.attrGet("href") or "")
                c.attrSet("href", self.resolve_link(doc, href, line))
                if self._check_link_text(doc, href, children, i, line):
                    # a link whose text is a rule ID goes straight to the rule in the HTML page
                    c.attrSet("href", "#" + children[i + 1].content.strip())
                link_depth += 1
                out.append(c)
            elif c.type == "link_close":
                link_depth -= 1
                out.append(c)
            elif c.type == "text":
                if link_depth:
                    for m in _ids.ID_RE.finditer(c.content):
                        self._check_id(doc, m.group("id"), m.group("wild") is not None, line)
                    out.append(c)
                else:
                    out.extend(self._link_ids(doc, c.content, line))
            else:
                out.append(c)
            i += 1
        tok.children = out

    def transform(self) -> None:
        for doc in self.docs:
            for tok in doc.tokens:
                if tok.type == "inline":
                    self._transform_inline(doc, tok)

    # -- output --------------------------------------------------------------------------------------
    def _toc_html(self) -> str:
        parts = ['<nav id="toc"><h2>Contents</h2><ul>']
        for doc in self.docs:
            top = [t for t in doc.toc if t[0] == 1][:1]
            title = top[0][1] if top else doc.rel
            parts.append(f'<li><a href="#{doc.docid}">{html.escape(title)}</a>')
            subs = [t for t in doc.toc if t[0] == 2]
            if subs:
                parts.append("<ul>")
                for _, text, hid in subs:
                    parts.append(f'<li><a href="#{hid}">{html.escape(text)}</a></li>')
                parts.append("</ul>")
            parts.append("</li>")
        parts.append('<li><a href="#rule-index">Index of rules</a></li></ul></nav>')
        return "".join(parts)

    def _index_html(self) -> str:
        groups: Dict[str, List[_ids.RuleDef]] = {}
        for rule in self.defs.rules.values():
            groups.setdefault(rule.id.split(".")[0], []).append(rule)
        parts = ['<section id="rule-index"><h1>Index of rules</h1>']
        for prefix in sorted(groups):
            rules = groups[prefix]
            parts.append(f"<details><summary>{html.escape(prefix)} ({len(rules)})</summary><ul class='rule-list'>")
            for r in rules:
                tag = f' <span class="rule-tag">{html.escape(",".join(sorted(r.tags)))}</span>' if r.tags else ""
                summary = html.escape(r.text[:140] + ("…" if len(r.text) > 140 else ""))
                parts.append(f'<li><a href="#{html.escape(r.id)}">{html.escape(r.id)}</a>{tag} — {summary}</li>')
            parts.append("</ul></details>")
        parts.append("</section>")
        return "".join(parts)

    def page(self) -> str:
        body = []
        for doc in self.docs:
            rendered = self.md.renderer.render(doc.tokens, self.md.options, {})
            body.append(f'<section class="doc" id="{doc.docid}-file" data-source="{html.escape(doc.rel)}">'
                        f"{rendered}</section>")
        return _TEMPLATE.format(toc=self._toc_html(), body="\n".join(body), index=self._index_html(),
                                rules=len(self.defs.rules))


_TEMPLATE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Relax specification</title>
<style>
body {{ margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1d1d1f; }}
#toc {{ position: fixed; top: 0; bottom: 0; left: 0; width: 19rem; overflow-y: auto; padding: 1rem;
        background: #f6f6f8; border-right: 1px solid #ddd; box-sizing: border-box; font-size: 13px; }}
#toc ul {{ padding-left: 1rem; margin: 0.2rem 0; }}
#toc a {{ text-decoration: none; color: #1a4f9c; }}
main {{ margin-left: 19rem; padding: 1rem 2.5rem 4rem; max-width: 60rem; }}
section.doc {{ border-bottom: 2px solid #e2e2e6; padding-bottom: 2rem; margin-bottom: 2rem; }}
code, pre {{ font-family: ui-monospace, monospace; font-size: 0.92em; background: #f3f3f5; }}
pre {{ padding: 0.6rem 0.8rem; overflow-x: auto; }}
table {{ border-collapse: collapse; margin: 0.8rem 0; }}
th, td {{ border: 1px solid #ccc; padding: 0.25rem 0.5rem; vertical-align: top; }}
a.rule-def {{ font-weight: 700; color: #8a2b06; text-decoration: none; }}
a.rule-def:target, :target {{ background: #fff3c4; }}
a.rule-ref {{ color: #8a2b06; }}
.rule-tag {{ font-size: 0.75em; background: #e6eefb; border-radius: 3px; padding: 0 0.3rem; }}
blockquote {{ border-left: 3px solid #ccc; margin-left: 0; padding-left: 1rem; color: #555; }}
</style></head>
<body>
{toc}
<main>
<p><em>{rules} rules. Generated from the Markdown sources in <code>spec/</code> by
<code>spec/tools/render.py</code>.</em></p>
{body}
{index}
</main>
</body></html>
"""


def render(spec_dir: Optional[Path] = None, out_path: Optional[Path] = None) -> RenderResult:
    """Render the spec; ``out_path`` only affects how links to files outside the spec are written."""
    spec_dir = Path(spec_dir) if spec_dir is not None else _ids.repo_root() / "spec"
    r = Renderer(spec_dir, out_path)
    r.load()
    r.transform()
    page = r.page()
    return RenderResult(html=page, errors=list(r.errors), docs=[d.rel for d in r.docs],
                        rules=len(r.defs.rules))


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-o", "--output", type=Path, default=None,
                        help="output HTML file (default: spec/_build/index.html)")
    parser.add_argument("--spec-dir", type=Path, default=None, help="spec directory (default: detected)")
    parser.add_argument("--check", action="store_true", help="check links and IDs, write nothing")
    args = parser.parse_args(argv)

    spec_dir = args.spec_dir or _ids.repo_root() / "spec"
    out = args.output or (spec_dir / "_build" / "index.html")
    result = render(spec_dir, out)
    for e in result.errors:
        print(f"error: {e}", file=sys.stderr)
    if not args.check:
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(result.html, encoding="utf-8")
        print(f"wrote {out} ({len(result.docs)} files, {result.rules} rules)")
    if result.errors:
        print(f"FAILED: {len(result.errors)} error(s)", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
