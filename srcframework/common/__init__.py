# every import of the package passes here, also when a folder of the same name hides the package
# and its own __init__ never runs: say so in one line (srcframework.common.shadowing)
from srcframework.common.shadowing import check_not_shadowed

check_not_shadowed()
