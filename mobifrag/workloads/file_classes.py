"""Classes of files by name (TMC §3.2, Fig. 3): SQLite, executable, multimedia, other."""

from __future__ import annotations

from pathlib import PurePosixPath

SQLITE_SUFFIXES = (".db", ".db-journal", ".db-wal", ".db-shm", ".sqlite", ".sqlite-journal")
SQLITE_SUFFIXES += (".sqlite-wal", ".sqlite-shm")
EXECUTABLE_SUFFIXES = (".apk", ".dex", ".odex", ".oat", ".vdex", ".art", ".so", ".jar")
MULTIMEDIA_SUFFIXES = (".jpg", ".jpeg", ".png", ".gif", ".webp", ".heic", ".bmp")
MULTIMEDIA_SUFFIXES += (".mp4", ".3gp", ".mkv", ".webm", ".mov", ".mp3", ".m4a", ".aac")
MULTIMEDIA_SUFFIXES += (".ogg", ".opus", ".wav", ".flac")


FILE_CLASSES = ("sqlite", "executable", "multimedia", "other")


def file_class(path: str) -> str:
    """SQLite, executable, multimedia or other, from the file name (TMC §3.2, Fig. 3)."""
    name = PurePosixPath(path).name.lower()
    if name.endswith(SQLITE_SUFFIXES) or name.endswith("-journal"):
        return "sqlite"
    if name.endswith(EXECUTABLE_SUFFIXES):
        return "executable"
    if name.endswith(MULTIMEDIA_SUFFIXES):
        return "multimedia"
    return "other"
