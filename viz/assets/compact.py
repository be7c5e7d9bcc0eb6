"""The front end's files as a saved output carries them: comments and layout stripped.

Every saved player (a lesson's output, ``save_html``, nbconvert) and every big
``viz.draw`` output inlines the whole module, since an output must work alone (no
CDN, nothing shared with another output).  Written for a reader, ``player.js`` is
about half comments and indentation; this strips those, and nothing else: no name
is shortened, no statement rewritten, so the embedded code is the same code, token
for token.

JavaScript (``compact_js``): the source is cut into tokens (names, numbers,
strings, regular expressions, punctuators), comments and whitespace are dropped,
and the tokens are written back with a space only where two would otherwise fuse
(``var x``, ``a + +b``) and a line break only where one can matter.  A line break
matters to JavaScript's automatic semicolon insertion: after ``return`` or before
``++`` it ends a statement, and between two statements written without a ``;``
it separates them.  So a break is dropped only when the token before it is a
punctuator that cannot end a statement (``{ ; , ( = + && ...``), or the token
after it can only continue one (``} ) ] , ; . : ?`` and binary operators); every
other break stays.  ``compact_js`` re-reads its own output and raises if the
tokens differ.

CSS (``compact_css``): comments dropped, whitespace runs made one space, and no
space kept around ``{ } ; , >`` or after ``:`` (a space before ``:`` is a
descendant selector and stays); strings are copied as they are.
"""

from __future__ import annotations

import re

__all__ = ["compact_css", "compact_js", "js_tokens"]

_PUNCT = sorted("""
>>>= ... === !== **= <<= >>= >>> &&= ||= ??= => == != <= >= && || ?? ?. ++ -- += -= *= /= %=
&= |= ^= ** << >> { } ( ) [ ] ; , < > + - * / % & | ^ ! ~ ? : = . @ #
""".split(), key=len, reverse=True)
_JS = re.compile(r"""
    (?P<space>\s+)
  | (?P<comment>//[^\n]*|/\*.*?\*/)
  | (?P<string>'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*"|`(?:[^`\\]|\\.)*`)
  | (?P<number>(?:0[xXoObB][0-9a-fA-F_]+|(?:\d[\d_]*\.?[\d_]*|\.\d[\d_]*)(?:[eE][+-]?\d+)?)n?)
  | (?P<word>[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)
  | (?P<punct>""" + "|".join(re.escape(p) for p in _PUNCT) + r""")
""", re.X | re.S)
_REGEX = re.compile(r"/(?:[^/\\\[\n]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/[A-Za-z]*")
# after these a "/" starts a regular expression, not a division
_BEFORE_REGEX = {"return", "typeof", "instanceof", "in", "of", "new", "delete", "void",
                 "throw", "case", "do", "else", "yield", "await"}
_HEADERS = {"if", "while", "for", "with"}  # after their "(...)", a "/" starts a regex
# punctuators that can end a statement: a line break after them may matter
_ENDS = {")", "]", "}", "++", "--"}
# punctuators that can only continue a statement: a line break before them never matters
_CONTINUES = {"}", ")", "]", ",", ";", ".", "?.", ":", "?", "=>", "&&", "||", "??", "=", "==",
              "===", "!=", "!==", "<", ">", "<=", ">=", "*", "%", "**", "+=", "-=", "*=", "/=",
              "%=", "&=", "|=", "^=", "&&=", "||=", "??=", "<<", ">>", ">>>", "&", "|", "^"}
_WORDISH = re.compile(r"[\w$\\\u0080-\uffff]")
# two neighbours that would fuse into another token (or a comment) if written together
_FUSE = {("+", "+"), ("-", "-"), ("/", "/"), ("/", "*"), ("<", "!"), ("-", ">")}


def js_tokens(source: str) -> list[tuple[str, str, bool]]:
    """``source`` as ``(kind, text, after_newline)`` tokens, comments and spaces dropped;
    ``kind`` is ``word``, ``number``, ``string``, ``regex`` or ``punct``."""
    tokens: list[tuple[str, str, bool]] = []
    pos, newline = 0, False
    headers: list[bool] = []  # per open "(": is it an if/while/for/with header?
    closed_header = False  # the last token is the ")" ending one (a regex may follow)
    while pos < len(source):
        prev = tokens[-1] if tokens else None
        if source[pos] == "/" and (prev is None or closed_header
                                   or (prev[0] == "punct" and prev[1] not in _ENDS)
                                   or (prev[0] == "word" and prev[1] in _BEFORE_REGEX)):
            m = _REGEX.match(source, pos)
            if m and not source.startswith(("//", "/*"), pos):
                tokens.append(("regex", m.group(), newline))
                pos, newline, closed_header = m.end(), False, False
                continue
        m = _JS.match(source, pos)
        if m is None:
            line = source.count("\n", 0, pos) + 1
            raise ValueError(f"compact_js: cannot read the script at line {line}: "
                             f"{source[pos:pos + 30]!r} (an unterminated string or comment?)")
        kind, text = m.lastgroup, m.group()
        pos = m.end()
        if kind in ("space", "comment"):
            newline = newline or "\n" in text
            continue
        if kind == "string" and text.startswith("`") and "${" in text:
            raise ValueError("compact_js: a template literal with ${...} is not supported: "
                             f"{text[:40]!r}")
        closed_header = text == ")" and kind == "punct" and bool(headers) and headers.pop()
        if text == "(" and kind == "punct":
            headers.append(prev is not None and prev[1] in _HEADERS)
        tokens.append((kind, text, newline))
        newline = False
    return tokens


def _gap(prev: tuple[str, str, bool], tok: tuple[str, str, bool]) -> str:
    """What goes between two tokens: a line break, a space, or nothing."""
    pkind, ptext, _ = prev
    kind, text, newline = tok
    if newline and not ((pkind == "punct" and ptext not in _ENDS)
                        or (kind == "punct" and text in _CONTINUES)):
        return "\n"
    if _WORDISH.match(ptext[-1]) and _WORDISH.match(text[0]):
        return " "
    if (ptext[-1], text[0]) in _FUSE or (pkind == "number" and text.startswith(".")):
        return " "
    return ""


def compact_js(source: str, header: str = "") -> str:
    """``source`` with comments and layout stripped (module docstring); ``header``, a
    comment put first (where the readable file is)."""
    tokens = js_tokens(source)
    out = [header] if header else []
    for i, tok in enumerate(tokens):
        if i:
            out.append(_gap(tokens[i - 1], tok))
        out.append(tok[1])
    text = "".join(out)
    if [t[:2] for t in js_tokens(text)] != [t[:2] for t in tokens]:
        raise RuntimeError("compact_js: the stripped script reads as different tokens")
    return text


_CSS = re.compile(r"""(?P<string>"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*')|(?P<comment>/\*.*?\*/)
                      |(?P<space>\s+)|(?P<other>[^"'/\s]+|/)""", re.X | re.S)
_TIGHT = set("{};,>")


def compact_css(source: str) -> str:
    """``source`` with comments dropped and whitespace kept only where it means something
    (module docstring); a ``;`` before ``}`` goes too."""
    out: list[str] = []
    space = False
    for m in _CSS.finditer(source):
        kind, text = m.lastgroup, m.group()
        if kind == "comment":
            continue
        if kind == "space":
            space = True
            continue
        if space and out and out[-1][-1] not in _TIGHT and out[-1][-1] != ":" \
                and text[0] not in _TIGHT:
            out.append(" ")
        space = False
        if text.startswith("}") and out and out[-1].endswith(";"):
            out[-1] = out[-1][:-1]
        out.append(text)
    return "".join(out)
