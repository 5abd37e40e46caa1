"""The desks: every command a person gives, in the table's words, as the ledger's API
for both faces (``cli`` and ``web``). A pulka's (``pulka``), a rubber's (``rubber``),
a tournament's (``tournament``), the club register's (``club``), a file of several
streams written out and stored (``streams``), what the scorer is told after a command
(``told``), and the check of a whole store (``verify``).
"""
