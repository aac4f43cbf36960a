"""State URLs: hiding the password in anything shown, and refusing URLs whose password would be misread.

A password is whatever lies between the first ``:`` after ``scheme://`` and
the **last** ``@`` of the URL (a host never holds ``@``). This rule is used for
redaction whatever the password holds, so a password with ``#``, ``?``, ``/``,
``@`` or spaces in it, written without percent-encoding, is still hidden whole,
even in a URL that no parser would accept. A URL with ``@`` after its host (in
the path or query) has everything before that ``@`` hidden: more than needed,
never less.

Parsers (``urllib.parse``, redis-py) end the host part at the first ``/``,
``?`` or ``#`` instead, so such a password would be read as a host, port or
path and could surface in a client's error text. :func:`split_url` refuses it
before any client sees it.
"""

from __future__ import annotations

import re
from urllib.parse import SplitResult, unquote, urlsplit

_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_ENDS_HOST = ("/", "?", "#", "\t", "\r", "\n")
HIDDEN = "***"


def scheme_of(url: str) -> str:
    """The scheme of ``url`` (``"redis"`` of ``redis://...``), or ``""`` if it does not start with one."""
    scheme = _SCHEME.match(url)
    return scheme.group()[:-3] if scheme else ""


def _after_scheme(url: str) -> int:
    scheme = _SCHEME.match(url)
    return scheme.end() if scheme else 0


def password_span(url: str) -> tuple[int, int] | None:
    """``(start, end)`` of the password in ``url`` by the last-``@`` rule, or None if there is none."""
    base = _after_scheme(url)
    at = url.rfind("@", base)
    if at < 0:
        return None
    colon = url.find(":", base, at)
    return None if colon < 0 else (colon + 1, at)


def redact(url: str) -> str:
    """``url`` with its password replaced by ``***`` (safe to log or put in a message), whatever it holds."""
    span = password_span(url)
    if span is None:
        return url
    return url[: span[0]] + HIDDEN + url[span[1] :]


def scrub(text: str, url: str) -> str:
    """``text`` (say, a client library's error message) with the password of ``url`` replaced by ``***``."""
    span = password_span(url)
    if span is None:
        return text
    secret = url[span[0] : span[1]]
    for form in sorted({secret, unquote(secret)}, key=len, reverse=True):
        if len(form) >= 4:  # a shorter one would also hide ordinary words of the message
            text = text.replace(form, HIDDEN)
    return text


def split_url(url: str) -> SplitResult:
    """``urlsplit(url)``, refusing a URL whose password or host part a parser would misread.

    Raises ValueError (its message holds the URL redacted, never the parser's
    text, which may quote the password) when the user name or password holds
    ``/``, ``?``, ``#``, a tab or a line break, when ``@`` follows the host,
    when the host part is not valid, or when the URL is not encodable text.
    """
    span = password_span(url)
    shown = redact(url)
    if span is not None:
        userinfo = url[_after_scheme(url) : span[1]]
        if any(c in userinfo for c in _ENDS_HOST):
            msg = (
                f"open_backend: the user name or password in {shown!r} holds '/', '?', '#', a tab or a line "
                "break, or an '@' follows the host; percent-encode the password, e.g. with "
                "urllib.parse.quote(password, safe=''), and write an '@' after the host as %40"
            )
            raise ValueError(msg)
    problem = None
    try:
        url.encode()
        parts = urlsplit(url)
        _ = parts.port  # a port that is not a number raises here
    except UnicodeEncodeError:
        problem = "a lone surrogate, which no text encoding can send"
    except ValueError as exc:  # its text may quote the netloc, password included: not shown
        problem = "a port that is not a number" if "Port" in str(exc) else "characters not valid in a host part"
    if problem is not None:
        msg = f"open_backend: bad URL {shown!r}: {problem}; expected scheme://[[user]:password@]host[:port][/path]"
        raise ValueError(msg)
    return parts


def query_pairs(parts: SplitResult) -> list[tuple[str, str]]:
    """The ``(name, raw value)`` pairs of the query, undecoded, in order."""
    pairs = []
    for item in parts.query.split("&"):
        if item:
            name, _, value = item.partition("=")
            pairs.append((unquote(name), value))
    return pairs


def without_query_option(url: str, name: str) -> str:
    """``url`` with every ``name=...`` item of its query removed, everything else unchanged.

    ``url`` must have passed :func:`split_url`: its first ``?`` then starts the query.
    """
    q = url.find("?")
    if q < 0:
        return url
    end = url.find("#", q)
    end = len(url) if end < 0 else end
    kept = [item for item in url[q + 1 : end].split("&") if item and unquote(item.partition("=")[0]) != name]
    return url[:q] + ("?" + "&".join(kept) if kept else "") + url[end:]
