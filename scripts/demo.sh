#!/usr/bin/env bash
# The demo of `make demo`: a Sochi pulka recorded deal by deal into a fresh embedded
# SQLite store, then shown, settled, audited and checked for tampering; then a short
# rubber of bridge on the same ledger, with the same commands.
set -euo pipefail

dir=$(mktemp -d "${TMPDIR:-/tmp}/pulka-demo.XXXXXX")
export PULKA_DB="$dir/pulka.db"
say() { printf '\n$ %s\n' "$*"; "$@"; }

echo "pulka demo: store $PULKA_DB"
say pulka new demo --players Anna,Boris,Vera --pulya 10 --stake 0.10 --by Vera
# One line a deal: bids in turn order | contract | defence calls | tricks from the forehand.
say pulka deal demo "6S pass pass | 6S | whist whist | 6 2 2"
say pulka deal demo "7H pass pass | 7H | whist pass | 7 2 1"
# Vera transcribes a house bonus from the paper sheet, 4 whists on Boris (event 16),
# puts her pencil down, and Boris points out it was 2: her first error, a warning [Code 4.2.7].
say pulka entry demo Vera whists 4 --on Boris
say pulka pencil demo Vera
say pulka correct demo 16 amount=2 --by Boris
say pulka deal demo "pass pass pass | 2 5 3"
say pulka deal demo "misere pass pass | misere | 0"
say pulka deal demo "6D 7S pass pass | 7S | whist whist | 3 6 1"
say pulka deal demo "pass 6NT pass | 6NT | pass pass"
say pulka deal demo "pass pass 8S | 8S | pass pass"
say pulka deal demo "pass 6H pass | 6H | whist pass | 3 6 1"
say pulka sheet demo --deal 8
say pulka deal demo "7D pass pass | 7D | pass pass"
say pulka sheet demo
say pulka settle demo
say pulka settle demo --json
say pulka explain demo Anna.whists.Boris
say pulka log demo --deal 2
say pulka verify demo
echo
echo "A bid after the end of the pulka is refused (exit status 1), and nothing is stored:"
say pulka bid demo Anna 6S || echo "(exit status $?)"

echo
echo "The same ledger keeps a rubber of bridge (seed 003 and the Laws of rubber bridge):"
# Four players clockwise from North; N-S (Anna, Vera) are МЫ. One line a deal:
# CONTRACT [X|XX] DECLARER RESULT [hon SEAT POINTS]; the result is the tricks taken, or =, +N, -N.
say pulka bridge new rubber-1 --players Anna,Boris,Vera,Gleb --stake 0.10 --by Anna
say pulka bridge deal rubber-1 "2D N 8"
say pulka bridge deal rubber-1 "3NT W -1"
say pulka bridge deal rubber-1 "3H S = hon S 100"
say pulka sheet rubber-1
say pulka bridge deal rubber-1 "4S X E ="
say pulka bridge deal rubber-1 "pass"
# Deal 3 (event 4) was made with an overtrick: a premium above the line, corrected in
# time [Law 77]. Deal 1 (event 2) was 3D, not 2D: that changes the trick score, and two
# deals have been played since, so the correction has no effect [Law 77].
say pulka correct rubber-1 4 tricks=10 --by Vera
say pulka correct rubber-1 2 contract=3D tricks=9 --by Anna
say pulka bridge deal rubber-1 "4H N 11"
say pulka sheet rubber-1
say pulka settle rubber-1
say pulka settle rubber-1 --json
say pulka explain rubber-1 we.above
say pulka diff rubber-1 deal:3 deal:6
say pulka log rubber-1 --at 9
say pulka verify rubber-1
echo
echo "A deal after the rubber is won is refused (exit status 1), and nothing is stored:"
say pulka bridge deal rubber-1 "1C N 7" || echo "(exit status $?)"
echo "pulka demo: done; the store is $PULKA_DB"
