"""The table's words: what a scorer types, turned into the log's words. A bid, a call
or a name in any case and either language (``table``), a whole deal in one line
(``deal_line``), a deal of bridge in one line (``rubber_line``), and the tournament's
own words (``tournament``). A word that cannot be read is refused with what would be.
"""
