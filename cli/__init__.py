"""Floor 3: the ``pulka`` command line: argument parsing and printing only."""
