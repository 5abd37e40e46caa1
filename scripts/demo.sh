#!/usr/bin/env bash
# The demo of `make demo`: the README's sample evening recorded into a fresh embedded
# SQLite store, then settled, audited and checked for tampering, and drawn: the sheet
# as an SVG picture and the whole pulka as an HTML report, next to the store; then a
# short rubber of bridge on the same ledger, read with the same commands.
set -euo pipefail

dir=$(mktemp -d "${TMPDIR:-/tmp}/pulka-demo.XXXXXX")
export PULKA_DB="$dir/pulka.db"
export XDG_STATE_HOME="$dir/state"   # the demo's current game stays in the demo
say() { printf '\n$ %s\n' "$*"; "$@"; }

echo "pulka demo: store $PULKA_DB"
say pulka new demo --players Anna,Boris,Vera --pulya 10 --stake 0.10
# One line a deal, its outcome: the declarer, the contract, the defence's calls, the
# tricks (the declarer's first, then the defenders' in the order they called).
say pulka deal "Anna 6S w w 6 2 2"
say pulka deal "Boris 7H w p 7 2 1"
# Vera transcribes a house bonus from the paper sheet, 4 whists on Boris (event 16),
# puts her pencil down, and Boris points out it was 2: her first error, a warning [Code 4.2.7].
# At a terminal `correct` asks before storing; here --yes answers for the script.
say pulka entry Vera whists 4 --on Boris
say pulka pencil Vera
say pulka correct 16 2 --by Boris --yes
# Raspasy: the tricks from the forehand (Boris leads).
say pulka deal "rasp 2 5 3"
say pulka deal "Anna miz 0"
echo
echo "The same deal again, the same players, contract and tricks, is taken for a line typed twice"
echo "(exit status 1, nothing stored; --again records a deal really played again):"
say pulka deal "Anna miz 0" || echo "(exit status $?)"
# The auction may be given too; the contract is then the last bid. Vera does not lead,
# so her count is marked (5*): the counts go round the table from it, read one way only.
say pulka deal "6D 7S p p | Vera w w 5* 2 3"
# Vera took 6, Anna 1: deal 5's tricks corrected at once, while in hand: it costs nothing.
say pulka correct deal:5 Vera=6 Anna=1 --yes
say pulka deal "Anna 6NT p p"
say pulka deal "Vera 8S p p"
say pulka deal "Vera 6H w p Vera=6 Anna=1 Boris=3"
say pulka sheet --deal 8
echo
echo "Counts that read for other players in the other order, writing another sheet, are asked about:"
echo "Anna 0 on her 6S, or Anna 6 read from the forehand? (exit status 1 without a terminal, nothing"
echo "stored; both sheets are shown, and the line that says each, the declarer's count marked):"
say pulka deal "Anna 6S w w 0 6 4" || echo "(exit status $?)"
echo
echo "A line cut short is refused unless --leave-open (exit status 1, nothing stored):"
say pulka deal "Vera 7D w" || echo "(exit status $?)"
# A wrong last line is taken back while in hand, and the right one recorded.
say pulka deal "Vera 7D w p 6 1 3"
say pulka undo
say pulka deal "Vera 7D p p"
say pulka settle
say pulka settle --json
say pulka explain Anna.whists.Boris
say pulka log --verdicts
say pulka log --only-deal 5
say pulka games
say pulka verify demo
# The pictures: the drawn sheet, and the report with a slider over every event.
into() { local file=$1; shift; printf '\n$ %s > %s\n' "$*" "$file"; "$@" >"$file"; }
into "$dir/demo.svg" pulka sheet --svg
into "$dir/demo.html" pulka report
echo "Open $dir/demo.html in a browser: the sheet, settlement and audit trail as of any event."
echo
echo "A bid after the end of the pulka is refused (exit status 1), and nothing is stored:"
say pulka bid Anna 6S || echo "(exit status $?)"

echo
echo "The same ledger keeps a rubber of bridge (seed 003 and the Laws of rubber bridge):"
# Four players clockwise from North; N-S (Anna, Vera) are МЫ. One line a deal:
# CONTRACT [X|XX] DECLARER RESULT [hon SEAT POINTS]; the result is the tricks taken, or =, +N, -N.
# The new rubber becomes the current game, so the commands leave its name out.
say pulka bridge new rubber-1 --players Anna,Boris,Vera,Gleb --stake 0.10 --by Anna
say pulka bridge deal "2D N 8"
say pulka bridge deal "3NT W -1"
say pulka bridge deal "3H S = hon S 100"
say pulka sheet
say pulka bridge deal "4S X E ="
say pulka bridge deal pass
# Deal 3 (event 4) was made with an overtrick: a premium above the line, corrected in
# time [Law 77]. Deal 1 (event 2) was 3D, not 2D: that changes the trick score, and two
# deals have been played since, so the correction has no effect [Law 77].
say pulka bridge correct 4 tricks=10 --by Vera
say pulka bridge correct 2 contract=3D tricks=9 --by Anna
say pulka bridge deal "4H N 11"
say pulka sheet
say pulka settle
say pulka settle --json
say pulka explain we.above
say pulka diff deal:3 deal:6
say pulka log --verdicts
say pulka games
say pulka verify rubber-1
echo
echo "A deal after the rubber is won is refused (exit status 1), and nothing is stored:"
say pulka bridge deal "1C N 7" || echo "(exit status $?)"
echo "pulka demo: done; the store is $PULKA_DB (pulka games --db $PULKA_DB)"
echo "To type pulka yourself: . .venv/bin/activate (this shell), or make install (a link in ~/.local/bin);"
echo "without --db or PULKA_DB your games go to pulka.db in your data folder, found from any folder."
