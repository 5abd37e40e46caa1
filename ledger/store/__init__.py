"""The event store: every stream's events kept through eventsourcing's recorders, in a
SQLite file (``sqlite``) or a PostgreSQL database (``postgres``), behind one ``Store``
(``event_store``), with what it gives and refuses (``stored``: a stored event, a
reading, the errors of a stream) and the rows it makes and checks (``rows``); a
command whose read went stale, decided again (``retry``); what the two backends share
(``backend``: the address, the errors); and the rows as eventsourcing's own
application reads them (``records``). Judges nothing: it keeps what the floors above
decided, and checks the hash chains it reads.
"""
