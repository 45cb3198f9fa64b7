"""Nsight Systems: the SQLite export reader (db) and the reports computed from it, as `nsys stats` does."""
