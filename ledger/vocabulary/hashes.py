"""The hashes of the chain and the stream ids, from the standard library's builtin
modules: SHA-256 (an event's chain digest, ``ledger.vocabulary.chain``) and SHA-1 (a
stream's id, ``uuid5``), the digests hashlib gives.

Not hashlib's: hashlib loads OpenSSL as it is imported, which cost a ``pulka deal``
about 11 M instructions (3 to 7 ms), more than the deal's own work, for what the
builtins compute: its stream's id, the chain of the game it reads (about 0.3 ms more
for 600 events than OpenSSL's) and the digests of the events it records. The standard
library's ``random`` takes its SHA-512 so (``_sha512``). A Python built without the
builtins (a build may leave them out) uses hashlib's.
"""

from __future__ import annotations

from typing import TYPE_CHECKING
from uuid import UUID

if TYPE_CHECKING:  # the builtins have the signatures of hashlib's
    from hashlib import sha1, sha256
else:
    try:
        from _sha1 import sha1
        from _sha256 import sha256
    except ImportError:  # pragma: no cover - a Python built without them
        from hashlib import sha1, sha256

__all__ = ["sha1", "sha256", "uuid5"]


def uuid5(namespace: UUID, name: str) -> UUID:
    """``uuid.uuid5(namespace, name)``, the same UUID (version 5: SHA-1 of the namespace's
    bytes and the name's UTF-8, RFC 4122), without importing hashlib."""
    return UUID(bytes=sha1(namespace.bytes + name.encode("utf-8")).digest()[:16], version=5)
