"""Floor 1: projections, pure folds from events to read models. Import only the
vocabulary (``ledger.vocabulary``) and each other; never judge."""
