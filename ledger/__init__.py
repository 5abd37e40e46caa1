"""pulka's ledger, in floors: each imports only from the floors below it, and the rooms
of one floor do not import each other (README, "How it is built"; tests/test_floors.py).

- ``ledger.vocabulary`` (floor 0): the words of the log: events and their codec, rule
  sets and presets, the bid ladder, times, refusals, the hash chain and the log file.
- ``projections`` (floor 1, a package of its own): pure folds from events to read
  models: deals, scoring, the sheet, the recording rules, settlement, audit, reports.
- ``ledger.store`` (floor 2): the event store and its two backends.
- ``ledger.words`` (floor 3): the table's words, read into the log's.
- ``ledger.judge`` (floor 4): the Code's rules, one room a judgement: every event judged
  against the stream so far before it is stored.
- ``ledger.views`` (floor 5): the archive's read models and the rating, kept beside the
  events.
- ``ledger.proofs`` (floor 6): the Merkle tree of the club log and its checkpoints.
- ``ledger.application`` (floor 7): the one load, one decision, one save.
- ``ledger.desks`` (floor 8): the commands of a pulka, a rubber, a tournament, the club.
- ``cli`` and ``web`` (floor 10, side by side): the faces: the command line parses and
  prints, the web renders and routes.
"""
