"""oneDNN's primitive cache, capped for srcframework's processes.

torch runs its LSTMs (and bfloat16 matrix products and convolutions) through oneDNN, which keeps
every primitive it creates in a cache of up to 1,024 (its default), and a cached LSTM primitive
holds its own buffers: tens of MB for BiDAF's 800-wide modelling layer. Each new sequence length
makes new primitives, so a training whose batches come in many lengths grows by those buffers step
after step without ever using most of them again: over 22 steps of BiDAF in bfloat16, the heap in
use grew from 268 to 469 MB and the peak resident size from 2,103 to 2,498 MB, though the largest
batch came third (docs/benchmarks.md). With a cache of 128 that peak was 2,107 to 2,203 MB (five
runs), for a few percent of the speed (primitives of earlier lengths made again); the outputs do
not change (the weights after 4 training steps are the same bit for bit with capacities 1, 128 and
1,024).

`cap_primitive_cache()` sets `ONEDNN_PRIMITIVE_CACHE_CAPACITY` to `PRIMITIVE_CACHE_CAPACITY` unless
the environment already names a capacity. oneDNN reads the variable once, when the process makes
its first primitive, so this must run before any torch computation: `srcframework.allennlp_plugin`
calls it as the `allennlp` command line starts (and a library user's `activate()`). Set the variable
yourself to choose another capacity (`1024` gives oneDNN's default back).
"""
import os

from typing import MutableMapping, Optional

VARIABLE = "ONEDNN_PRIMITIVE_CACHE_CAPACITY"
PRIMITIVE_CACHE_CAPACITY = 128
LIBRARY_DEFAULT = 1024  # oneDNN's own capacity, where the variable is unset


def cap_primitive_cache(environ: Optional[MutableMapping[str, str]] = None) -> str:
    """Set the capacity in `environ` (this process's environment by default) unless it is set; the
    capacity in force, as the environment gives it."""
    environ = os.environ if environ is None else environ
    return environ.setdefault(VARIABLE, str(PRIMITIVE_CACHE_CAPACITY))
