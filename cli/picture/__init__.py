"""Pictures of a pulka for people: the drawn sheet (``svg``) and the self-contained
HTML report (``page``, with ``report.html``, ``report.css`` and ``report.js``).

Presentation only: the data comes from ``projections.picture``; nothing here scores
or settles. To change the look, edit the sizes and ``STYLE`` in ``svg.py`` and the
files next to it.
"""
