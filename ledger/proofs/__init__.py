"""Proofs that the club log is what it was: its Merkle tree over the store with a cache
of tiles (``tree``), and signed checkpoints, arbiters' signatures and the bundles a
player checks at home (``checkpoints``).
"""
