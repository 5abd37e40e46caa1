#!/usr/bin/env bash
# The demo of `make demo`: a Sochi pulka recorded deal by deal into a fresh embedded
# SQLite store, then shown, settled, audited and checked for tampering, and drawn: the
# sheet as an SVG picture and the whole pulka as an HTML report, next to the store.
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
# The pictures: the drawn sheet, and the report with a slider over every event.
into() { local file=$1; shift; printf '\n$ %s > %s\n' "$*" "$file"; "$@" >"$file"; }
into "$dir/demo.svg" pulka sheet demo --svg
into "$dir/demo.html" pulka report demo
echo "Open $dir/demo.html in a browser: the sheet, settlement and audit trail as of any event."
echo
echo "A bid after the end of the pulka is refused (exit status 1), and nothing is stored:"
say pulka bid demo Anna 6S || echo "(exit status $?)"
echo "pulka demo: done; the store is $PULKA_DB"
