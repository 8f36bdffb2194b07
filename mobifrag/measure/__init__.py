"""Measurements read from platform runs: fragcheck snapshots, fragmentation metrics, F2FS state."""
