"""Passwords never show: in messages, tracebacks, logs, ``backend.url``, whatever characters they hold."""

import logging
import re
import string
import traceback
import uuid
from urllib.parse import quote

import pytest
import redis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from state_backends import StateBackendError, open_backend
from state_backends.urls import redact
from tests.service_fixtures import RedisServer, free_port

# Characters URLs give a meaning to, or that parsers strip or normalize, then anything at all.
SPECIAL = [*"#?/@:%*&=+;,[]\\\"'<>^`{|} \t\r\n\x00", "\uff03", "\uff0f", "\u2100", "\ufe6b", "é", "密"]
PIECES = st.one_of(
    st.sampled_from(SPECIAL), st.text(string.ascii_letters + string.digits, min_size=1, max_size=6), st.characters()
)
PASSWORDS = st.lists(PIECES, min_size=1, max_size=8).map("".join)  # words among specials: "ab@cdef/gh" is likely
USERS = st.sampled_from(["", "app"])
RIGHT = "the-right-pw"
PROPERTY = settings(
    max_examples=120, deadline=None, database=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


@pytest.mark.parametrize(
    ("url", "shown"),
    [
        ("redis://:Zq#secret1@127.0.0.1:6392/0", "redis://:***@127.0.0.1:6392/0"),
        ("redis://user:a/b?c#d@e@host:1/2?x=y", "redis://user:***@host:1/2?x=y"),
        ("redis://u:p:w@h", "redis://u:***@h"),
        ("rediss://u:p%40w@h:6380/0?ssl_cert_reqs=none", "rediss://u:***@h:6380/0?ssl_cert_reqs=none"),
        ("hbase://h:9090/p", "hbase://h:9090/p"),
        ("redis://user@h/0", "redis://user@h/0"),  # a user name alone is not secret
        ("redis://h/0?ssl_ca_certs=/a@b.pem", "redis://h/0?ssl_ca_certs=/a@b.pem"),
        ("rediss://u:pw@h/0?ssl_ca_certs=/a@b.pem", "rediss://u:***@b.pem"),  # '@' after the host: hide more
        ("u:pw@h:1", "u:***@h:1"),  # no scheme
        ("x:a://b@h", "x:***@h"),  # "://" inside the password is no scheme
        ("memory://", "memory://"),
    ],
)
def test_redact_hides_everything_up_to_the_last_at(url, shown):
    assert redact(url) == shown


@pytest.mark.parametrize(
    "password", ["Zq#secret1", "ab/cdefg", "wh?ere", "tab\there", "line\nbreak", "x\uff03y", "lone\ud800surrogate"]
)
def test_a_password_a_parser_would_misread_is_refused_with_the_fix(password):
    with pytest.raises(ValueError, match="open_backend: ") as info:
        open_backend(f"redis://:{password}@127.0.0.1:{free_port()}/0")
    assert password not in str(info.value)
    assert re.search("percent-encode|not valid in a host part|lone surrogate", str(info.value))


def test_bytes_url_is_refused_without_showing_it():
    with pytest.raises(TypeError, match="open_backend: url must be a str; got bytes instead") as info:
        open_backend(b"redis://:hunter22@h/0")
    assert "hunter22" not in str(info.value)


# --- the generated passwords ---------------------------------------------------------------------------------


def _texts(exc: BaseException) -> list[str]:
    """What a traceback of ``exc`` shows besides source lines: its message and those of the exceptions it shows."""
    texts = []
    shown: BaseException | None = exc
    while shown is not None:
        texts += [str(shown), repr(shown), "".join(traceback.format_exception_only(shown))]
        shown = shown.__cause__ or (None if shown.__suppress_context__ else shown.__context__)
    return texts


def _raised(fn) -> list[str]:
    """The texts of what ``fn()`` raises (it must raise one of squall's documented errors)."""
    try:
        result = fn()
    except (ValueError, TypeError, StateBackendError) as exc:
        return _texts(exc)
    return [result.url, repr(result.namespace("n"))]


class Logged(logging.Handler):
    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def logged():
    handler = Logged()
    logger = logging.getLogger("squall.state")
    logger.addHandler(handler)
    try:
        yield handler.lines
    finally:
        logger.removeHandler(handler)


@pytest.fixture(scope="module")
def locked_redis(start_redis):
    """A redis-server whose password tests change with CONFIG SET (binary-safe, unlike its command line)."""
    server = start_redis("--requirepass", RIGHT)
    yield server
    server.stop()


def _leaks(password: str, rest: str, texts: list[str], benign: str) -> list[str]:
    """Substrings (4 chars or more, raw or percent-encoded) of ``password`` in ``texts`` that nothing else explains.

    ``rest`` is the URL with the password cut out, ``benign`` what the same calls show for a neutral password.
    """
    found = []
    for secret in {password, quote(password, safe="", errors="surrogatepass")}:
        for size in range(4, len(secret) + 1):
            for i in range(len(secret) - size + 1):
                part = secret[i : i + size]
                if part in rest or part in benign:
                    continue
                found += [f"{part!r} in {text!r}" for text in texts if part in text]
    return found


def _every_message(user: str, password: str, server: RedisServer) -> tuple[str, list[str]]:
    """``(the URLs with the password cut out, every text squall shows)`` for URLs holding ``user:password``."""
    down = free_port()
    around = [
        ("redis://", f"@127.0.0.1:{down}/0?retry_seconds=0.06"),  # connection refused: retried, logged
        ("redis://", f"@127.0.0.1:{server.port}/0"),  # a wrong password: not retried
        ("rediss://", f"@127.0.0.1:{down}/1?retry_seconds=0"),
        ("hbase://", f"@127.0.0.1:{down}/squalltest?retry_seconds=0"),
        ("fancy://", f"@127.0.0.1:{down}/0"),
        ("memory://", f"@store-{uuid.uuid4().hex}"),
    ]
    texts = []
    for scheme, after in around:
        url = f"{scheme}{user}:{password}{after}"
        assert redact(url) == f"{scheme}{user}:***{after}"
        texts += _raised(lambda url=url: open_backend(url))
    return " ".join(f"{scheme}{user}:\x00{after}" for scheme, after in around), texts


NEUTRAL: dict[str, str] = {}


@given(user=USERS, password=PASSWORDS)
@PROPERTY
def test_no_message_shows_a_generated_password(user, password, locked_redis, logged):
    if user not in NEUTRAL:  # what the same calls show for passwords that cannot leak (made once per user)
        neutral = [_every_message(user, p, locked_redis)[1] for p in ("pw", "p#w", "p\uff03w")]
        NEUTRAL[user] = "\n".join([text for texts in neutral for text in texts] + logged)
    benign = NEUTRAL[user]
    logged.clear()
    rest, texts = _every_message(user, password, locked_redis)
    assert _leaks(password, rest, texts + logged, benign) == []


def _require(port: int, password: str, *known: str) -> None:
    """Set the server's password, logging in with whichever of ``known`` it has now."""
    for current in known:
        try:
            redis.Redis(port=port, password=current).config_set("requirepass", password)
            return
        except redis.AuthenticationError:
            continue
    raise AssertionError("the server's password is none of the known ones")


def _connect_then_refused(password: str, port: int) -> tuple[str, list[str]]:
    """Connect with ``password`` percent-encoded, commit, then have the password refused: what squall shows."""
    url = f"redis://:{quote(password, safe='')}@127.0.0.1:{port}/0?retry_seconds=0.2"
    _require(port, password, RIGHT)
    try:
        with open_backend(url) as backend:
            ns = backend.namespace(f"pw-{uuid.uuid4().hex[:8]}")
            assert ns.commit(1, {b"k": password.encode()})
            assert ns.get(b"k") == password.encode()
            texts = [backend.url, repr(ns)]
            _require(port, RIGHT, password)  # the backend's next connection is refused...
            admin = redis.Redis(port=port, password=RIGHT)
            admin.client_kill_filter(_type="normal", skipme=True)  # ...and its open one is closed
            with pytest.raises(StateBackendError, match=r"get: Redis at redis://:\*\*\*@.* failed: Authentic") as info:
                ns.get(b"k")
            return url.replace(quote(password, safe=""), "\x00"), texts + _texts(info.value)
    finally:
        _require(port, RIGHT, RIGHT, password)


@given(password=PASSWORDS.filter(lambda p: not any("\ud800" <= c <= "\udfff" for c in p)))  # a surrogate: no text
@PROPERTY
def test_a_percent_encoded_password_connects_and_still_never_shows(password, locked_redis, logged):
    benign = "\n".join(_connect_then_refused("pw", locked_redis.port)[1] + logged)
    logged.clear()
    rest, texts = _connect_then_refused(password, locked_redis.port)
    assert _leaks(password, rest, texts + logged, benign) == []
