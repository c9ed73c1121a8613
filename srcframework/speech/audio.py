"""Audio I/O lives in `srcframework.common.audio`; this name remains for older imports."""
from srcframework.common.audio import *  # noqa: F401,F403
