"""The cells of a study's results tables: the `Table`, an estimate with its interval (`Estimate`),
a p-value (`PValue`), how each is shown (`format_cell`), and the cells and labels several tables
share. Scores are percentages shown with one decimal, an interval as `value [low, high]`, `†`
marking a difference whose Holm-corrected p (over its table's family of tests) is below the
significance level; `-` marks a cell with no value."""
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple

SIGNIFICANT = "†"


@dataclass(frozen=True)
class Estimate:
    """A table cell: a value with its interval, and a mark (`†` for a significant difference)."""

    value: float
    low: float
    high: float
    mark: str = ""


@dataclass(frozen=True)
class PValue:
    """A table cell holding a p-value (three decimals)."""

    value: float


@dataclass
class Table:
    """One results table. `groups` optionally spans header cells with a label (the model of
    three score columns); `first` is how many leading columns are labels rather than numbers;
    `counts`, where given, parallels `rows` with the number of questions behind each cell (None
    for a cell that is no group's score)."""

    name: str
    title: str
    header: List[str]
    rows: List[List[Any]]
    first: int = 1
    groups: Optional[List[Tuple[str, int]]] = None
    notes: List[str] = field(default_factory=list)
    counts: Optional[List[List[Optional[int]]]] = None

    def flat_header(self) -> List[str]:
        """Header cells with their group label in front (`bidaf EM`), for flat formats."""
        if not self.groups:
            return list(self.header)
        labels: List[str] = []
        for label, span in self.groups:
            labels.extend([label] * span)
        return [f"{label} {cell}".strip() for label, cell in zip(labels, self.header)]


def format_cell(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, Estimate):
        return f"{value.value:.1f} [{value.low:.1f}, {value.high:.1f}]{value.mark}"
    if isinstance(value, PValue):
        return "<0.001" if value.value < 0.001 else f"{value.value:.3f}"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def pair_index(results: dict) -> Dict[Tuple[str, str], dict]:
    return {(pair["model"], pair["set"]): pair for pair in results["pairs"]}


def set_label(test_set: dict) -> str:
    noise = test_set.get("question_noise") or {}
    measured_on = noise.get("measured_on")
    if measured_on and measured_on != test_set["name"]:
        return f"{test_set['name']} (via {measured_on})"
    return test_set["name"]


def estimate(pair: dict, metric: str) -> Any:
    """A pair's EM or F1 with its interval, where the results have one."""
    if f"{metric}_low" not in pair:
        return pair[metric]
    return Estimate(pair[metric], pair[f"{metric}_low"], pair[f"{metric}_high"])


def difference(test: Optional[dict]) -> Any:
    if not test:
        return None
    return Estimate(test["difference"], test["low"], test["high"], SIGNIFICANT if test.get("significant") else "")



def p_cell(test: Optional[dict], key: str = "p") -> Any:
    return PValue(test[key]) if test and test.get(key) is not None else None


def test_cells(comparison: dict) -> List[Any]:
    cells: List[Any] = [comparison["questions"]]
    for metric in ("em", "f1"):
        test = comparison.get(metric)
        cells += [difference(test), p_cell(test), p_cell(test, "p_holm")]
    return cells


GROUP_LABELS = {"held_out": "held-out generator", "seen": "generator used in training", "undeclared": "no generator given",
                "all": "all noisy sets"}


def seed_label(model: Optional[dict], index: int) -> str:
    """The training seed of a model's archive number `index` (its config's random_seed, from the
    study's training records or, for an archive without one, the study's `random_seeds`), else
    `#N`, the archive's place in the model's list."""
    records = (model or {}).get("training") or []
    record = records[index] if index < len(records) else None
    if record and record.get("random_seed") is not None:
        return str(record["random_seed"])
    seeds = (model or {}).get("random_seeds") or []
    if index < len(seeds) and seeds[index] is not None:
        return str(seeds[index])
    return f"#{index + 1}"


SEED_NOTE = "Seed: the random_seed of the archive's config.json (#N: the N-th archive, where the config does not say)."


def seed_notes(labels: List[str]) -> List[str]:
    """`SEED_NOTE` where a table names an archive by its place (`#N`), else nothing."""
    return [SEED_NOTE] if any(label.startswith("#") for label in labels) else []


NO_SHARED = "no shared questions"
