"""Scoring one deal of rubber bridge: what each side writes above and below the line.

``score_bridge_deal`` turns a played deal and the vulnerability before it into the points of
the sheet, each with the rule it comes from; ``rubber_bonus`` and ``unfinished_bonuses``
are what the end of a rubber adds [Law 74, Law 80]. Pure functions over the table in
``ledger.vocabulary.bridge_rules``; the rubber itself (games, the line, vulnerability)
is folded in ``projections.rubber``.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from ledger.vocabulary.bridge import SIDE_NAMES, Side, contract_text, needed, parse_contract
from ledger.vocabulary.bridge_rules import (
    DOUBLED_OVERTRICK,
    DOUBLED_UNDERTRICKS,
    FACTOR,
    INSULT,
    NT_FIRST_EXTRA,
    RUBBER_BONUS,
    SLAM,
    TRICK_VALUE,
    UNDOUBLED_UNDERTRICK,
    UNFINISHED_GAME,
    BridgeRules,
)

Line = Literal["above", "below"]


class Score(NamedTuple):
    """Points one side writes for one reason."""

    side: Side
    line: Line
    points: int
    why: str


def other(side: Side) -> Side:
    return "EW" if side == "NS" else "NS"


def trick_points(level: int, denomination: str, double: str | None) -> int:
    """The trick points of a contract made: level x value, 10 more at no trump, doubled
    x2, redoubled x4 [seed 003; Law 81]. 2NT doubled: (2 x 30 + 10) x 2 = 140."""
    extra = NT_FIRST_EXTRA if denomination == "NT" else 0
    return (level * TRICK_VALUE[denomination] + extra) * FACTOR[double]


def overtrick_points(over: int, denomination: str, double: str | None, vulnerable: bool) -> int:
    """Overtricks: the denomination's value each when undoubled [seed 003]; doubled 100
    (vulnerable 200) each, redoubled twice that [Law 81]."""
    if double is None:
        return over * TRICK_VALUE[denomination]
    return over * DOUBLED_OVERTRICK[vulnerable] * FACTOR[double] // 2


def undertrick_points(down: int, double: str | None, vulnerable: bool) -> int:
    """What the defenders write for ``down`` undertricks [Law 81]."""
    if double is None:
        return down * UNDOUBLED_UNDERTRICK[vulnerable]
    first, second_third, later = DOUBLED_UNDERTRICKS[vulnerable]
    doubled = sum(first if i == 1 else second_third if i <= 3 else later for i in range(1, down + 1))
    return doubled * FACTOR[double] // 2


def score_bridge_deal(
    declarer_side: Side,
    contract: str,
    double: str | None,
    tricks: int,
    vulnerable: dict[Side, bool],
    honours: tuple[Side, int] | None,
) -> list[Score]:
    """The points a played deal writes, in the order they are written: the trick points
    below the line, then the premiums above it; or the undertricks; then honours."""
    level, denomination = parse_contract(contract)
    vul = vulnerable[declarer_side]
    made = tricks - needed(level)
    scores: list[Score] = []
    shown = f"{contract_text(level, denomination)}{double or ''}"
    if made >= 0:
        scores.append(Score(declarer_side, "below", trick_points(level, denomination, double),
                            f"{shown} made [seed 003; Law 81]"))
        if made:
            many = "overtrick" if made == 1 else "overtricks"
            rule = "seed 003" if double is None else "Law 81"
            scores.append(Score(declarer_side, "above", overtrick_points(made, denomination, double, vul),
                                f"{made} {many} [{rule}]"))
        if double is not None:
            scores.append(Score(declarer_side, "above", INSULT[double],
                                f"making a {'doubled' if double == 'X' else 'redoubled'} contract [Law 81]"))
        if level in SLAM:
            slam = "small slam" if level == 6 else "grand slam"
            scores.append(Score(declarer_side, "above", SLAM[level][vul],
                                f"{slam}{', vulnerable' if vul else ''} [Law 81]"))
    else:
        down = -made
        how = {None: "", "X": " doubled", "XX": " redoubled"}[double]
        scores.append(Score(other(declarer_side), "above", undertrick_points(down, double, vul),
                            f"{shown} {down} down{how}, {'vulnerable' if vul else 'not vulnerable'} [Law 81]"))
    if honours is not None:
        side, points = honours
        scores.append(Score(side, "above", points, "honours [Law 81]"))
    return scores


def rubber_bonus(winner: Side, losers_games: int) -> Score:
    """700 for a rubber won 2-0, 500 for 2-1 [seed 003; Law 74]."""
    return Score(winner, "above", RUBBER_BONUS[losers_games],
                 f"rubber {2}-{losers_games} to {SIDE_NAMES[winner]} [seed 003; Law 74]")


def unfinished_bonuses(games: dict[Side, int], part_scores: dict[Side, int], rules: BridgeRules) -> list[Score]:
    """An unfinished rubber [Law 80]: 300 to the side that won the only finished game,
    and the part-score premium to the only side with a part score in the unfinished game."""
    scores: list[Score] = []
    winners = [s for s in games if games[s]]
    if len(winners) == 1 and games[winners[0]] == 1:
        scores.append(Score(winners[0], "above", UNFINISHED_GAME, "unfinished rubber: one game [Law 80]"))
    partial = [s for s in part_scores if part_scores[s] > 0]
    if len(partial) == 1 and rules.unfinished_part_score:
        scores.append(Score(partial[0], "above", rules.unfinished_part_score,
                            "unfinished rubber: part score in the unfinished game [Law 80]"))
    return scores
