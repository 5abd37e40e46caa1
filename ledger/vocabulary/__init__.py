"""Floor 0: the vocabulary of the ledger (events, rule sets, bids, times, refusals, the
hash chain and the log file). Imports nothing of the project above it."""
