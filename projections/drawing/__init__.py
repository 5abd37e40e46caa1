"""Presentation from documents, below both faces: what ``pulka`` prints to a file and
``pulka serve`` sends are drawn here once. The drawn sheet (``svg``), the pulka's
self-contained HTML report (``page``, with ``report.html``, ``report.css`` and
``report.js``), a player's and the club's pages with their charts (``player``), a
tournament's page (``tournament_page``) and QR codes (``qr``).

Presentation only: the data comes from the documents of ``projections`` (``picture``,
``rating``, ``stats``, ``tournament_state``); nothing here reads the store, scores or
settles, and it imports nothing above ``projections``. To change the look, edit the
sizes and ``STYLE`` in ``svg.py`` and the files next to it.
"""
