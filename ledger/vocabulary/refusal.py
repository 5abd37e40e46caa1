"""A refusal: the rule a line or a command breaks, why, and what would be allowed.

Every floor may refuse: the log reader a line that is not an event, the command side
an event the rules forbid. The command line prints the refusal with the line of the
file it came from, and the store is left as it was.
"""

from __future__ import annotations

# Where a rule that is not the Code's is written down, in the repository's own docs.
DOCS = {
    "event-log": "docs/event-log.md",
    "rules.md §9": "docs/conventions.md",
    "command-line": "docs/event-log.md, the command line",
}


def cite(rule: str) -> str:
    """A rule as messages cite it: ``Code 4.2.7`` for a rule of the Code of Preferans,
    else the document of this repository that sets it (``docs/event-log.md``)."""
    if rule[:1].isdigit():
        return f"Code {rule}"
    if rule.startswith(("tournament.", "club.")):  # the rules of docs/conventions.md, "Tournaments"
        return f"{rule}, docs/conventions.md"
    return DOCS.get(rule, rule)


class Refused(ValueError):
    """An event the rules do not allow: the rule, the reason, and what would be allowed."""

    def __init__(self, rule: str, reason: str, allowed: str | None = None) -> None:
        self.rule = rule
        self.reason = reason
        self.allowed = allowed
        self.line: int | None = None
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.reason} [{cite(self.rule)}]"
        if self.allowed:
            text += f"; allowed: {self.allowed}"
        return text

    def __str__(self) -> str:
        where = f"line {self.line}: " if self.line is not None else ""
        return where + self.message
