"""How big what the repository carries may be, defined once: each file under `models/` (a released
archive, a snapshot) at most `FILE_MAX_BYTES`, the folder as a whole at most `FOLDER_MAX_BYTES`.
The writers read the limits when they are called."""
import os

FILE_MAX_BYTES = 20 * 1024 * 1024
FOLDER_MAX_BYTES = 60 * 1024 * 1024


def folder_bytes(folder: str) -> int:
    """The bytes of every file under `folder` (one walk)."""
    total = 0
    for base, _, names in os.walk(folder):
        total += sum(os.path.getsize(os.path.join(base, name)) for name in names)
    return total
