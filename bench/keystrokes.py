"""Keystrokes of a 17-deal Sochi evening (issue 20), typed both ways in ``pulka play``:
before, each deal as the whole line (the auction as it was said, the contract, the
calls, the tricks from the forehand); after, as its outcome (the declarer, the
contract, the calls, the tricks the declarer's first; raspasy and misère short). Where
the declarer does not lead, the counts would read for other players in the other
order, so his count is marked (``7*``, issue 32: a line read one way only, never asked
about; 4 of the 17 deals). A keystroke is a character of the line, and Enter.
``tests/test_keystrokes.py`` records both evenings, none of them asked about, and checks
that they give the same sheet deal by deal.

    python bench/keystrokes.py
"""

from __future__ import annotations

PLAYERS = ("Anna", "Boris", "Vera")  # Vera deals first, Anna leads
PULYA = 30

# (the whole line, as typed before; the outcome, as typed now), deal by deal.
EVENING: tuple[tuple[str, str], ...] = (
    ("6S pass pass | 6S | whist whist | 6 2 2", "Anna 6S w w 6 2 2"),
    ("6S 6C pass 6D pass | 7D | whist pass | 7 2 1", "Boris 7D w p 7 2 1"),
    ("pass pass pass | 4 3 3", "rasp 4 3 3"),
    ("pass pass misere | misere | 0", "Vera miz 0"),
    ("pass pass 8S | 8S | pass pass", "Anna 8S p p"),
    ("6H pass pass | 6H | whist whist | 5 3 2", "Vera 6H w w 5 3 2"),
    ("6S 7S pass pass | 7S | whist pass | 2 7* 1", "Boris 7S w p 7* 1 2"),
    ("pass pass pass | 2 5 3", "rasp 2 5 3"),
    ("pass 6NT pass | 6NT | whist whist | 3 6* 1", "Anna 6NT w w 6* 1 3"),
    ("pass 6C pass | 6C | pass half_whist", "Boris 6C p hw"),
    ("pass 9H pass | 9H | whist pass | 1 9* 0", "Vera 9H w p 9* 0 1"),
    ("pass misere pass | misere | 2", "Anna miz 2"),
    ("7H pass pass | 7H | whist whist | 8 1 1", "Anna 7H w w 8 1 1"),
    ("pass pass pass | 3 3 4", "rasp 3 3 4"),
    ("pass pass 6D | 6D | whist whist | 2 2 6*", "Boris 6D w w 6* 2 2"),
    ("pass pass 8D | 8D | pass pass", "Vera 8D p p"),
    ("6S pass pass | 6S | whist whist | 4 3 3", "Boris 6S w w 4 3 3"),
)


def keystrokes(lines: list[str]) -> int:
    """The keys a scorer presses for ``lines``: each character, and Enter."""
    return sum(len(line) + 1 for line in lines)


def main() -> None:
    before = [old for old, _ in EVENING]
    after = [new for _, new in EVENING]
    for name, lines in (("before (the whole deal)", before), ("after (the outcome)", after)):
        each = [len(line) + 1 for line in lines]
        print(f"{name:24} {keystrokes(lines):4} keystrokes, {keystrokes(lines) / len(lines):.1f} a deal "
              f"({min(each)}-{max(each)})")
    print(f"saved: {1 - keystrokes(after) / keystrokes(before):.0%}")


if __name__ == "__main__":
    main()
