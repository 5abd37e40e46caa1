"""The club's live scoring service (``pulka serve``): an HTTP service over the same ledger,
store and desk as the command line, for the people of a club evening or a tournament.

On the clients' floor beside ``cli``: it routes requests to the scorer's desk
(``ledger.desks.pulka``), the tournament commands (``ledger.desks.tournament``) and
the read side (``projections``), and renders what they return as JSON, SVG and server-sent
events. It builds no event and judges nothing; nothing below imports it.

- ``app``: the ASGI application (Starlette), its security headers, errors and routes;
- ``api``: the JSON API of the scorer, the arbiter, the director and the reads;
- ``outcome``: a structured deal outcome as the desk's deal line;
- ``service``: the store per worker thread, each open game's fold kept, writes stored once;
- ``live``: the store's change feed as server-sent events, per game and per tournament;
- ``auth``, ``accounts``: who may do what (accounts, table tokens, sessions, CSRF);
- ``serve``: the ``pulka serve`` command, its accounts and the demo club.
"""
