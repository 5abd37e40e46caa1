"""The read models that span many streams, kept in the store beside the events by an
eventsourcing projection: the club archive (``archive``: every pulka's result, the
tournaments' caps, the aliases) and the club rating kept with it (``rating``).
"""
