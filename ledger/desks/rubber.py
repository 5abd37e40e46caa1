"""The scorer's desk of a rubber of bridge: its recording commands as the command floor's
API, as ``ledger.desks.pulka`` is a pulka's.

Each command takes what the scorer typed (a deal line ``"4S X@E N 10"``, seats or names
in any case, a correction's fields) and ``by``, builds the event, calls
``Ledger.execute`` once with the rubber's kind (a pulka is refused) or ``Ledger.create``,
and returns what the scorer is told: a ``told.Told``, the shape a pulka's commands
return too (its writes are a side's points above or below the line; its verdicts are
``effective`` or ``no effect`` [Law 77]), or a ``pulka.Started``. The command line
(``cli.bridge``) parses its arguments, calls the desk and prints.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import msgspec

from ledger.application import Command, Kept, Ledger, Outcome
from ledger.desks.pulka import Names, Started, choice, recorder, typed
from ledger.judge.kinds import RUBBER
from ledger.words.rubber_line import correction_words, player_of, rubber_deal
from ledger.desks.told import Told, ToldEvent, ToldWrite, Verdict
from ledger.words.table import parse_value
from ledger.vocabulary import language
from ledger.vocabulary.bridge import SIDES, BridgePenalty, RubberStarted
from ledger.vocabulary.events import Abandoned, AnyEvent, Correction
from projections.rubber import RubberState, rubber_totals
from projections.rubber_report import SIDE_CELLS, rubber_event_text, side_cell_text, status
from projections.trail import changes

_ = language._  # every text a person reads, in the language in effect


class RubberDesk:
    """The recording commands of a rubber on a ledger, each one call of the ledger."""

    def __init__(self, ledger: Ledger, kept: Kept | None = None) -> None:
        self.ledger = ledger
        self.kept = kept

    def _told(self, game: str, command: Command[RubberState]) -> Told:
        return rubber_told(self.ledger.execute(game, command, kind=RUBBER, kept=self.kept))

    def new(self, game: str, players: Names, *, stake: str | None = None, first_dealer: str | None = None,
            rules: Mapping[str, Any] | None = None, by: str | None = None) -> Started:
        """Start a rubber: four players clockwise from North (N–S is МЫ), the stake per 100
        points, who deals first (default: North), rule overrides."""
        seated = tuple(p.strip() for p in players.split(",")) if isinstance(players, str) else tuple(players or ())
        dealer = typed("first_dealer", player_of, seated, first_dealer) \
            if first_dealer and len(seated) == 4 else first_dealer
        started = RubberStarted(game=game, players=seated, stake=stake, first_dealer=dealer, rules=dict(rules or {}),
                                by=by)
        recorded = self.ledger.create(started)
        if not recorded.created:
            return Started(game, started, False)
        stored = recorded.stored[0].event
        assert isinstance(stored, RubberStarted)
        return Started(game, stored, True)

    def deal(self, game: str, line: str, *, by: str | None = None) -> Told:
        """A deal: "CONTRACT [X[@SEAT]] [XX[@SEAT]] DECLARER RESULT [hon SEAT POINTS]", or
        "pass" (``ledger.words.rubber_line``); ``by`` default: the declarer (the dealer when passed out)."""

        def command(state: RubberState) -> list[AnyEvent]:
            event = typed("line", rubber_deal, state.players, line)
            return [msgspec.structs.replace(event, by=recorder(state, by)) if by else event]

        return self._told(game, command)

    def penalty(self, game: str, side: str, points: int, *, reason: str, by: str | None) -> Told:
        """Points above the line for a side by ruling, never towards a game [Law 72]."""
        which = choice("side", side.upper(), SIDES, "Law 72")

        def command(state: RubberState) -> list[AnyEvent]:
            return [BridgePenalty(side=which, points=points, reason=reason, by=recorder(state, by))]  # type: ignore[arg-type]

        return self._told(game, command)

    def correct(self, game: str, target: int, changes: Mapping[str, str], *, by: str | None = None) -> Told:
        """Correct event ``target`` [Law 77]: FIELD: VALUE as typed (``tricks: 10``,
        ``declarer: E``, ``honours: S:100``, a value as JSON or a bare word)."""
        replacement = {key: typed("changes", parse_value, value) for key, value in changes.items()}

        def command(state: RubberState) -> list[AnyEvent]:
            fields = typed("changes", correction_words, state.players, replacement)
            return [Correction(target=target, replacement=fields, by=recorder(state, by))]

        return self._told(game, command)

    def abandon(self, game: str, *, agreed_by: Names, by: str | None = None) -> Told:
        """Stop the rubber by agreement of all four: scored as unfinished [Law 80]."""
        typed_names: Sequence[str] = agreed_by.split(",") if isinstance(agreed_by, str) else agreed_by or ()

        def command(state: RubberState) -> list[AnyEvent]:
            agreed = tuple(typed("agreed_by", player_of, state.players, p.strip()) for p in typed_names)
            return [Abandoned(agreed_by=agreed, by=recorder(state, by))]

        return self._told(game, command)


def rubber_told(outcome: Outcome[RubberState]) -> Told:
    """What a rubber's recording command did, in the shape a pulka's says it."""
    state: RubberState = outcome.state
    sheet = state.sheet()
    writes = changes(outcome.totals_before, rubber_totals(sheet))
    nxt = (status(state) if state.over else
           _("deal {deal}: {dealer} deals").format(deal=state.current_deal_number + 1,
                                                    dealer=state.dealer(state.current_deal_number + 1)))
    return Told(
        kind="rubber",
        game=outcome.game,
        events=tuple(ToldEvent(s.number, s.event, rubber_event_text(state, s.event)) for s in outcome.stored),
        writes=tuple(ToldWrite(c, v, side_cell_text(c)) for c, v in writes.items()),
        verdicts=tuple(Verdict(s.number, e, "effective" if e.effective else "no effect", True)
                       for s in outcome.stored if (e := state.effects.get(s.number)) is not None),
        deals=(),
        next=nxt,
        over=state.over,
        open_deal=None,
        vulnerable={side: sheet.vulnerable(side) for side in SIDES},
        cells=SIDE_CELLS,
    )
