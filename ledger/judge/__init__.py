"""The judge: every event is judged against the stream so far before it is stored, one
room per judgement of the Code. What every event must be (``admission``), the shared
small checks (``checks``), the pulka's play (``play``, which sends each event to its
room: ``auction``, ``defence``, ``result``, ``by_hand``, ``arbiter``,
``around_table``), corrections (``corrections``), a pulka's whole judgement
(``pulka``), a rubber's (``rubber``), a tournament's (``tournament``, with ``seating``
and ``tables``), the club register (``register``), a file of several streams
(``streams``), the one loop that judges a batch of any kind (``judging``, with
``kinds``), and a stored stream judged again (``stored``).
"""
