"""Why a row of a study's tables is empty: a robustness group or a comparison whose pairs share no
question id has no figures. Each such row is said on stderr when the results are assembled (and in
its table: `cells.NO_SHARED`), with what usually causes it: sets drawn from other question pools
than the set they are compared with."""
import sys
from typing import List, TextIO

from srcframework.studies.cells import GROUP_LABELS

CAUSE = ("the sets may come from different question pools; give each noisy set the clean set of its own questions "
         "as `reference` (docs/studies.md)")


def unshared_rows(results: dict) -> List[str]:
    """One line for each robustness group, model comparison and comparison across sets of
    `results` that has no shared question."""
    lines = []
    for row in results.get("robustness") or []:
        for group in row.get("groups") or []:
            if not group.get("questions"):
                lines.append(f"robustness of {row['model']} against {row['twin']}, {GROUP_LABELS.get(group['group'], group['group'])} "
                             f"({', '.join(group['noisy_sets'])}): no question id is held by every pair of the group "
                             f"(model and twin, on each noisy set and on its clean set); {CAUSE}")
    for comparison in results.get("comparisons") or []:
        if not comparison.get("questions"):
            lines.append(f"comparison of {comparison['first']} and {comparison['second']} on {comparison['set']}: "
                         "no question both answered")
    for comparison in results.get("cross_comparisons") or []:
        if not comparison.get("questions"):
            first, second = comparison["first"], comparison["second"]
            lines.append(f"comparison {comparison['label']!r} ({first['model']} on {first['set']} against "
                         f"{second['model']} on {second['set']}): the two sets share no question id; {CAUSE}")
    return lines


def say_unshared(results: dict, stream: TextIO = None) -> List[str]:
    """Write `unshared_rows` to stderr (or `stream`), one `warning:` line each; returns them."""
    lines = unshared_rows(results)
    for line in lines:
        print(f"warning: {line}", file=stream or sys.stderr)
    return lines
