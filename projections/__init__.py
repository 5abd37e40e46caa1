"""Floor 1: projections, pure folds from events to read models, and (``drawing``) the
pictures and pages drawn from their documents. Import only the vocabulary
(``ledger.vocabulary``) and each other; never judge."""
