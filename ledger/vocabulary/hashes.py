"""The hashes of the chain and the stream ids, from the standard library's builtin
modules: SHA-256 (an event's chain digest, ``ledger.vocabulary.chain``) and SHA-1 (a
stream's id, ``uuid5``), the digests hashlib gives.

Not hashlib's at first: hashlib loads OpenSSL as it is imported, which cost a ``pulka
deal`` about 11 M instructions (3 to 7 ms), more than the deal's own work, for what the
builtins compute: its stream's id, the chain of the game it reads and the digests of
the events it records. The standard library's ``random`` takes its SHA-512 so
(``_sha512``). A Python built without the builtins (a build may leave them out) uses
hashlib's.

But the builtin SHA-256 is slower: an event's 300 bytes take it about 1.6 us, OpenSSL's
0.65 (a 600-event read, about 0.6 ms more). A process that hashes many events (a long
game's read, an import, ``verify``, the service) pays for OpenSSL's loading many times
over: the chain's walks ask ``sha256_for`` how many events they will hash, and once a
process has asked for ``BULK`` in all, they are given OpenSSL's, loaded then. The
digests are the same whichever computes them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING
from uuid import UUID

if TYPE_CHECKING:  # the builtins have the signatures of hashlib's
    from hashlib import _Hash, sha1, sha256
else:
    try:
        from _sha1 import sha1
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - a Python built without them
        from hashlib import sha1, sha256

__all__ = ["BULK", "sha1", "sha256", "sha256_for", "uuid5"]

# Events hashed in a process, all walks together, from which OpenSSL's SHA-256 is used:
# about where 1 us saved an event has paid for its loading (3 to 7 ms).
BULK = 5_000
_asked = [0]  # events the walks of this process have asked to hash so far


def sha256_for(count: int) -> Callable[[bytes], _Hash]:
    """The SHA-256 for a walk that will hash ``count`` events: the builtin's until this
    process has asked for ``BULK`` in all, then hashlib's (OpenSSL), the same digests."""
    _asked[0] += count
    if _asked[0] < BULK:
        return sha256
    from hashlib import sha256 as openssl

    return openssl


def uuid5(namespace: UUID, name: str) -> UUID:
    """``uuid.uuid5(namespace, name)``, the same UUID (version 5: SHA-1 of the namespace's
    bytes and the name's UTF-8, RFC 4122), without importing hashlib."""
    return UUID(bytes=sha1(namespace.bytes + name.encode("utf-8")).digest()[:16], version=5)
