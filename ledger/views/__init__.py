"""The read models that span many streams, kept in the store beside the events by an
eventsourcing projection: the club archive (``archive``: the ``Views`` of a store, which
catch up, follow, rebuild and read them: every pulka's result, the tournaments' caps,
the aliases), kept by its projection (``projection``) through the tables' tracking
recorders (``recorders``), and the club rating kept with it (``rating``).
"""
