"""The texts the scorer's page shows for the table's actions (``static/score_actions.js``:
undo asked about, redo, a deal's tricks corrected by taps, the end of the pulka with its
settlement previewed, a misdeal, a number by hand, an objection, the talon), added to
the texts every page's script reads (``pages.SCRIPT_TEXTS``)."""

from __future__ import annotations

from ledger.vocabulary.language import N_

ACTION_TEXTS: dict[str, str] = {
    "undo_ask": N_("Undo deal {deal}: {what}?"), "undo_ask_record": N_("Undo {what}?"),
    "undo_ask_unsent": N_("Undo {what}? It was not sent yet."),
    "undone_what": N_("undone: {what}"), "redo_what": N_("redo: {what}"), "redo_label": N_("redo"),
    "redone_what": N_("redone: {what}"),
    "fix_deal": N_("deal {deal}: {game}"), "fix_none": N_("no deal with tricks yet"),
    "abandon_label": N_("the pulka ended now"), "abandon_ask": N_("If the pulka ends now, the settlement is:"),
    "annul_label": N_("deal {deal} annulled: dealt again"), "annul_dealer": N_("(the dealer's error)"),
    "entry_label": N_("{player}: {column} {amount}"), "entry_on_label": N_("{player}: whists {amount} on {on}"),
    "object_label": N_("{player} objects to the late record of deal {deal}"),
    "object_ask": N_("{player} objects to the late records of deal {deal}? An objection cannot be undone."),
    "object_told": N_("{what}: {verdict}"),
    "talon_label": N_("the talon: {kind}, {player}"), "talon_peek": N_("looked at"), "talon_refused": N_("refused"),
    "talon_premium": N_("the dealer's premium"), "nobody": N_("nobody"),
}
