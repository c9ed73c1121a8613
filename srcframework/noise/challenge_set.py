"""The challenge-set job lives in `srcframework.jobs.challenge_set`; this name remains for older imports."""
from srcframework.jobs.challenge_set import *  # noqa: F401,F403
