"""The clone's folders, defined once: its root, `recipes/`, `models/` (released archives) and
`models/snapshots/` (work under way), and the models folder of installed archives
(`$SRCFRAMEWORK_MODELS`, by default in the user's cache).

Each function reads `PROJECT_ROOT` when it is called. Only `srcframework.store` writes under
`models/` (docs/architecture.md); other layers read these paths.
"""
import os
from pathlib import Path
from typing import Optional

# the folder that holds `models/` and `recipes/` in a clone (site-packages when installed with `pip install .`)
PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
# names another folder of installed archives
MODELS_ENV = "SRCFRAMEWORK_MODELS"


def recipes_dir() -> str:
    """`recipes/` of the clone that holds this package."""
    return os.path.join(PROJECT_ROOT, "recipes")


def models_dir(root: Optional[str] = None) -> str:
    """`models/` under `root` (default: the clone's root): the released archives, and the snapshots."""
    return os.path.join(root or PROJECT_ROOT, "models")


def snapshots_dir() -> str:
    """`models/snapshots/` of the clone: the snapshots of work under way."""
    return os.path.join(models_dir(), "snapshots")


def user_cache_dir() -> str:
    """The user's cache folder: `$XDG_CACHE_HOME`, or `~/.cache`."""
    return os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")


def installed_dir() -> str:
    """The folder of installed archives: `$SRCFRAMEWORK_MODELS`, or `srcframework/models` in the user's cache."""
    folder = os.environ.get(MODELS_ENV) or os.path.join(user_cache_dir(), "srcframework", "models")
    return os.path.abspath(os.path.expanduser(folder))
