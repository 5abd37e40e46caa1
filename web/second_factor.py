"""A second factor for signing in: time-based one-time passwords (TOTP, RFC 6238 over
HOTP, RFC 4226) as authenticator apps make them, and recovery codes.

- A secret is 20 random bytes (160 bits, RFC 4226's recommendation), shown to the
  person once as base32 and as an ``otpauth://`` address in a QR code, which the app
  reads; the service keeps it in its table of accounts, never in the log.
- A code is 6 digits of HMAC-SHA1 of the 30-second step since the epoch; one step
  before or after is taken too (a phone's clock a little off), and a step once used is
  taken no more (``accepted``: a code seen over a shoulder cannot be replayed).
- Recovery codes: ten, each good once, shown once and kept as SHA-256 digests.

``tests/test_second_factor.py`` checks the code against RFC 6238's test vectors.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import struct
import time
from urllib.parse import quote

STEP = 30  # seconds of one code
DIGITS = 6
DRIFT = 1  # steps either side taken for a clock a little off
RECOVERY_CODES = 10


def new_secret() -> str:
    """A new secret, base32 without padding (as authenticator apps take it)."""
    return base64.b32encode(secrets.token_bytes(20)).decode().rstrip("=")


def _key(secret: str) -> bytes:
    padded = secret.upper() + "=" * (-len(secret) % 8)
    return base64.b32decode(padded)


def hotp(key: bytes, counter: int, digits: int = DIGITS, digest: str = "sha1") -> str:
    """RFC 4226: the ``digits`` decimal digits of the HMAC of ``counter``."""
    mac = hmac.new(key, struct.pack(">Q", counter), digest).digest()
    offset = mac[-1] & 0x0F
    value = struct.unpack(">I", mac[offset:offset + 4])[0] & 0x7FFFFFFF
    return str(value % 10**digits).zfill(digits)


def code_at(secret: str, when: float) -> str:
    """The code of ``secret`` at the time ``when`` (seconds since the epoch)."""
    return hotp(_key(secret), int(when // STEP))


def accepted(secret: str, code: str, last_step: int, now: float | None = None) -> int | None:
    """The step whose code ``code`` is, when it is one of the steps around ``now`` and
    later than ``last_step`` (the last one used); None otherwise."""
    code = code.strip().replace(" ", "")
    if len(code) != DIGITS or not code.isascii() or not code.isdigit():
        return None
    now = time.time() if now is None else now
    step = int(now // STEP)
    key = _key(secret)
    for candidate in range(step - DRIFT, step + DRIFT + 1):
        if candidate > last_step and hmac.compare_digest(hotp(key, candidate), code):
            return candidate
    return None


def enrolment_uri(secret: str, account: str, issuer: str) -> str:
    """The ``otpauth://`` address an authenticator app reads from the QR code."""
    label = quote(f"{issuer}:{account}", safe="")
    return f"otpauth://totp/{label}?secret={secret}&issuer={quote(issuer, safe='')}&digits={DIGITS}&period={STEP}"


def recovery_codes() -> list[str]:
    """New recovery codes, shown once: ``xxxx-xxxx-xxxx`` of lower-case letters and digits."""
    alphabet = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i to misread
    return ["-".join("".join(secrets.choice(alphabet) for _ in range(4)) for _ in range(3))
            for _ in range(RECOVERY_CODES)]


def recovery_digest(code: str) -> str:
    return hashlib.sha256(code.strip().lower().encode()).hexdigest()
