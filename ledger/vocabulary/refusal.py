"""A refusal: the rule a line or a command breaks, why, and what would be allowed.

Every floor may refuse: the log reader a line that is not an event, the command side
an event the rules forbid. The command line prints the refusal with the line of the
file it came from, and the store is left as it was.
"""

from __future__ import annotations

from ledger.vocabulary import language

_ = language._  # every text a person reads, in the language in effect
N_ = language.N_

EXCERPT = 40  # characters of an input a message quotes
LONGEST = 1000  # characters of a reason (or of what is allowed) a message carries


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """``text`` as a message quotes it: in quotes, with its control characters escaped
    (``repr``), and cut to ``limit`` characters with its length said when it is longer,
    so that a refusal of a huge input is not huge itself."""
    if len(text) <= limit:
        return repr(text)
    return f"{text[:limit]!r}… ({len(text):,} characters)"


def bounded(text: str, limit: int = LONGEST) -> str:
    """A part of a message cut to ``limit`` characters (a reason that quotes an input
    it did not cut itself, a list of what is allowed that an input made long)."""
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit:,} more characters)"

# Where a rule that is not the Code's is written down, in the repository's own docs.
DOCS = {
    "event-log": "docs/event-log.md",
    "rules.md §9": "docs/conventions.md",
    "command-line": N_("docs/event-log.md, the command line"),
    "proofs": N_("docs/event-log.md, Proofs"),
    "accounts": N_("docs/api.md, Accounts"),
}


def cite(rule: str) -> str:
    """A rule as messages cite it: ``Code 4.2.7`` for a rule of the Code of Preferans,
    else the document of this repository that sets it (``docs/event-log.md``)."""
    if rule[:1].isdigit():
        return _("Code {rule}").format(rule=rule)
    if rule.startswith("Law "):  # the Laws of Contract Bridge, for a rubber
        return _("Law {rule}").format(rule=rule[len("Law "):])
    if rule.startswith(("tournament.", "club.")):  # the rules of docs/conventions.md, "Tournaments"
        return f"{rule}, docs/conventions.md"
    return _(DOCS[rule]) if rule in DOCS else rule


class Refused(ValueError):
    """An event the rules do not allow: the rule, the reason, and what would be allowed.

    ``line``: the line of a file it came from; ``field``: the input it concerns, where
    that can be known (a command's argument, as the scorer's desk names it: ``player``,
    ``bid``, ``changes``), so that a form can point at it. Neither is part of the
    message."""

    def __init__(self, rule: str, reason: str, allowed: str | None = None, field: str | None = None) -> None:
        self.rule = rule
        self.reason = bounded(reason)
        self.allowed = bounded(allowed) if allowed is not None else None
        self.line: int | None = None
        self.field = field
        super().__init__(self.message)

    @property
    def message(self) -> str:
        text = f"{self.reason} [{cite(self.rule)}]"
        if self.allowed:
            text += "; " + _("allowed: {allowed}").format(allowed=self.allowed)
        return text

    def __str__(self) -> str:
        where = _("line {line}: ").format(line=self.line) if self.line is not None else ""
        return where + self.message


class UnreadableInput(ValueError):
    """An input that cannot be read at all (a value typed as JSON, nested too deeply to
    parse): refused before any rule is reached, so it cites none."""
