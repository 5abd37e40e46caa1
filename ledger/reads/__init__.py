"""The reads both faces share (floor 9): the game document of ``--json`` and the API, the
club's reads of the archive's views, and a tournament's report."""
