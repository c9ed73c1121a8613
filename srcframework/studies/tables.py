"""A study's results as tables: Markdown (`results.md`), CSV (`results.csv`, one row per pair and
group, full precision) and LaTeX (`results.tex`, booktabs).

The tables, each written only when the study has rows for it:

- `em_f1`: EM and F1 per test set and model, and the F1 drop from the model's clean set
  (NoiseQA, Ravichander et al. 2021, Table 4);
- `f1_by_country`: F1 per country of the speaker with the F1 range, best country minus worst
  (SQuAD-SRC, Tang et al. 2023, Table 3), and `f1_by_gender`;
- `question_noise`: CER, WER and BLEU of each set's questions against the clean ones;
- `wer_by_country`: the questions' WER per country (how hard each accent is for the recogniser).

Scores are percentages shown with one decimal; `-` marks a cell with no value.
"""
import csv
import io
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Tuple


@dataclass
class Table:
    """One results table. `groups` optionally spans header cells with a label (the model of
    three score columns); `first` is how many leading columns are labels rather than numbers."""

    name: str
    title: str
    header: List[str]
    rows: List[List[Any]]
    first: int = 1
    groups: Optional[List[Tuple[str, int]]] = None
    notes: List[str] = field(default_factory=list)

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
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)


def _pair_index(results: dict) -> Dict[Tuple[str, str], dict]:
    return {(pair["model"], pair["set"]): pair for pair in results["pairs"]}


def _set_label(test_set: dict) -> str:
    noise = test_set.get("question_noise") or {}
    measured_on = noise.get("measured_on")
    if measured_on and measured_on != test_set["name"]:
        return f"{test_set['name']} (via {measured_on})"
    return test_set["name"]


def em_f1_table(results: dict) -> Table:
    pairs = _pair_index(results)
    models = [model["name"] for model in results["models"]]
    rows = []
    for test_set in results["test_sets"]:
        row = [test_set["name"], test_set["interface"], test_set["kind"]]
        for model in models:
            pair = pairs.get((model, test_set["name"]))
            row += [pair["em"], pair["f1"], pair["f1_drop"] if pair["reference"] else None] if pair else [None] * 3
        rows.append(row)
    groups = [("", 3)] + [(model, 3) for model in models]
    header = ["Test set", "Interface", "Kind"] + ["EM", "F1", "ΔF1"] * len(models)
    notes = ["ΔF1: F1 on the model's clean set minus F1 on this set."]
    return Table("em_f1", "EM / F1 by test set and model", header, rows, 3, groups, notes)


def _groups_table(results: dict, key: str, name: str, title: str, with_range: bool) -> Table:
    pairs = [pair for pair in results["pairs"] if pair.get(f"by_{key}")]
    values = sorted({value for pair in pairs for value in pair[f"by_{key}"]})
    rows = []
    for pair in pairs:
        groups = pair[f"by_{key}"]
        row = [pair["model"], pair["set"]] + [groups[v]["f1"] if v in groups else None for v in values]
        if with_range:
            row.append(pair["f1_range"]["value"] if pair.get("f1_range") else None)
        rows.append(row)
    header = ["Model", "Test set"] + values + (["F1 range"] if with_range else [])
    notes = ["F1 range: the best country's F1 minus the worst's."] if with_range else []
    return Table(name, title, header, rows, 2, None, notes)


def question_noise_table(results: dict) -> Table:
    rows = []
    for test_set in results["test_sets"]:
        noise = test_set.get("question_noise")
        if noise:
            rows.append(
                [_set_label(test_set), test_set["interface"], test_set["kind"], noise["questions"], noise["changed"],
                 noise["cer"], noise["wer"], noise["bleu"]]
            )
    header = ["Test set", "Interface", "Kind", "Questions", "Changed", "CER", "WER", "BLEU"]
    notes = ["Questions against their clean originals; CER and WER after lowercasing and removing punctuation."]
    return Table("question_noise", "Question noise by test set", header, rows, 3, None, notes)


def wer_by_country_table(results: dict) -> Table:
    sets = [s for s in results["test_sets"] if (s.get("question_noise") or {}).get("by_country")]
    countries = sorted({c for s in sets for c in s["question_noise"]["by_country"]})
    rows = [[_set_label(s)] + [s["question_noise"]["by_country"].get(c) for c in countries] for s in sets]
    return Table("wer_by_country", "Question WER by country", ["Test set"] + countries, rows, 1)


def results_tables(results: dict) -> List[Table]:
    """Every table that has rows, in the order the reports show them."""
    tables = [
        em_f1_table(results),
        _groups_table(results, "country", "f1_by_country", "F1 by country", with_range=True),
        _groups_table(results, "gender", "f1_by_gender", "F1 by gender", with_range=False),
        question_noise_table(results),
        wer_by_country_table(results),
    ]
    return [table for table in tables if table.rows]


def markdown_table(table: Table) -> str:
    header = table.flat_header()
    lines = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join("---" if i < table.first else "---:" for i in range(len(header))) + "|",
    ]
    lines += ["| " + " | ".join(format_cell(cell) for cell in row) + " |" for row in table.rows]
    return "\n".join(lines)


def results_markdown(results: dict) -> str:
    lines = [f"# Study: {results['study']}", ""]
    for table in results_tables(results):
        lines += [f"## {table.title}", "", markdown_table(table), ""]
        lines += [note for note in table.notes] + ([""] if table.notes else [])
    return "\n".join(lines).rstrip("\n") + "\n"


CSV_COLUMNS = [
    "model", "set", "interface", "kind", "reference", "group_key", "group", "questions", "em", "f1", "em_drop",
    "f1_drop", "question_cer", "question_wer", "question_bleu",
]


def _number(value: Optional[float]) -> str:
    return "" if value is None else f"{value:.4f}"


def results_csv(results: dict) -> str:
    """One row per pair (`group_key` = `all`) and per pair and group (country, gender, speaker).
    The question CER/WER/BLEU columns are the test set's (a group row: that group's WER)."""
    noise = {s["name"]: s.get("question_noise") or {} for s in results["test_sets"]}
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for pair in results["pairs"]:
        common = [pair["model"], pair["set"], pair["interface"], pair["kind"], pair["reference"] or ""]
        set_noise = noise[pair["set"]]
        writer.writerow(
            common + ["all", "all", pair["questions"], _number(pair["em"]), _number(pair["f1"]),
                      _number(pair["em_drop"]), _number(pair["f1_drop"]), _number(set_noise.get("cer")),
                      _number(set_noise.get("wer")), _number(set_noise.get("bleu"))]
        )
        for key in ("country", "gender", "speaker"):
            group_wer = set_noise.get(f"by_{key}") or {}
            for group, scores in pair.get(f"by_{key}", {}).items():
                writer.writerow(
                    common + [key, group, scores["count"], _number(scores["em"]), _number(scores["f1"]), "", "", "",
                              _number(group_wer.get(group)), ""]
                )
    return out.getvalue()


TEX_SPECIAL = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
    "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "Δ": r"$\Delta$",
}


def tex_escape(text: str) -> str:
    return "".join(TEX_SPECIAL.get(char, char) for char in text)


def tex_table(table: Table) -> str:
    columns = "l" * table.first + "r" * (len(table.header) - table.first)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        r"\caption{" + " ".join([tex_escape(table.title) + "."] + [tex_escape(n) for n in table.notes]) + "}",
        rf"\label{{tab:{table.name.replace('_', '-')}}}",
        rf"\begin{{tabular}}{{{columns}}}",
        r"\toprule",
    ]
    if table.groups:
        cells, rules, column = [], [], 1
        for label, span in table.groups:
            cells.append(rf"\multicolumn{{{span}}}{{c}}{{{tex_escape(label)}}}" if label else " & ".join([""] * span))
            if label:
                rules.append(rf"\cmidrule(lr){{{column}-{column + span - 1}}}")
            column += span
        lines.append(" & ".join(cells) + r" \\")
        lines.append(" ".join(rules))
    lines.append(" & ".join(tex_escape(cell) for cell in table.header) + r" \\")
    lines.append(r"\midrule")
    for row in table.rows:
        lines.append(" & ".join(tex_escape(format_cell(cell)) for cell in row) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def results_tex(results: dict) -> str:
    """The tables as LaTeX `table` floats (needs `\\usepackage{booktabs}`)."""
    parts = [f"% Study {tex_escape(results['study'])}: results tables. Needs \\usepackage{{booktabs}}."]
    parts += [tex_table(table) for table in results_tables(results)]
    return "\n\n".join(parts) + "\n"
