"""pulka's ledger, in floors: each imports only from the floors below it.

- ``ledger.vocabulary`` (floor 0): the words of the log: events and their codec, rule
  sets and presets, the bid ladder, times, refusals, the hash chain and the log file.
- ``projections`` (floor 1, a package of its own): pure folds from events to read
  models: deals, scoring, the sheet, the recording rules, settlement, audit, reports.
- ``ledger.command`` (floor 2): the command side: judging every event against the
  projections, the event store, and the application (one load, one decision, one save).
- ``cli`` (floor 3): argument parsing and printing.
"""
