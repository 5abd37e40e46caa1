"""Floor 2: the command side: judging events against the projections, the event store,
and the application that loads, decides and saves."""
