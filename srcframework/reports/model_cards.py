"""
A model card's figures, filled from its recipe's results, and the README's "Models" table made
from the cards.

`fill_metrics(ID)` reads the results file the card names (`model_usage.results`): a study's
`results.json` (`allennlp compare`), where the model is found by its archive (the card's `output`,
its installed copy, or its id), one seed's figures where the study gives the model several
archives; or the metrics file of `allennlp evaluate` (EM and F1 as fractions). The figures go into
the card's `quantitative_analyses.unitary_results`, as text, and nowhere else: a card without
results keeps none. A study that named the model by its card id records that id, which is how the
card finds its archive's figures wherever the models folder is.

`models_table(cards)` is the README's table: each card's clean F1 and mean drop (`headline`, read
from its results file), what makes it and how long that takes; `table_into(FILE, cards)` writes it
between a Markdown file's `<!-- models table -->` and `<!-- /models table -->` lines.
"""
import json
import os
import re
from typing import Dict, List, Optional, Tuple

from allennlp.common.model_card import ModelCard

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import read_json, write_text_atomic
from srcframework.pretrained import card_file, installed_path, model_card, model_cards, repository_file


def _same_file(path: str, targets: List[str]) -> bool:
    return any(path == target or os.path.realpath(path) == os.path.realpath(target) for target in targets)


def find_archive(results: dict, card: ModelCard) -> Tuple[str, int, int]:
    """`(study model name, archive index, archive count)` of the card's archive in a study's results."""
    targets = [card.id, installed_path(card.id)] + ([card.model_usage.output] if card.model_usage.output else [])
    for model in results.get("models", []):
        archives = model.get("archives") or [model.get("archive")]
        for index, archive in enumerate(archives):
            if card.id in (model.get("name"), model.get("card")) or (isinstance(archive, str) and _same_file(archive, targets)):
                return model["name"], index, len(archives)
    names = ", ".join(model.get("name", "?") for model in results.get("models", []))
    raise InputError(
        f"the study names no model with {card.id}'s archive ({', '.join(targets[1:])}); its models: {names}"
    )


def study_figures(results: dict, card: ModelCard) -> Tuple[str, List[dict]]:
    """`(which archive, [{set, interface, questions, em, f1, f1_drop}, ...])` of the card's model
    in a study."""
    name, index, count = find_archive(results, card)
    interfaces = {test_set.get("name"): test_set.get("interface") for test_set in results.get("test_sets", [])}
    rows = []
    for pair in results.get("pairs", []):
        if pair.get("model") != name:
            continue
        figures = pair["seeds"][index] if count > 1 else pair
        rows.append({"set": pair["set"], "interface": pair.get("interface") or interfaces.get(pair["set"]),
                     "questions": pair.get("questions"), "em": figures["em"], "f1": figures["f1"],
                     "f1_drop": figures.get("f1_drop")})
    which = f"model {name!r}" + (f", archive {index + 1} of {count}" if count > 1 else "")
    return which, rows


def _figure(row: dict) -> str:
    details = [f"EM {row['em']:.1f}"]
    if row.get("f1_drop") is not None:
        details.append(f"drop {row['f1_drop']:.1f}")
    if row.get("questions"):
        details.append(f"{row['questions']:,} questions")
    return f"{row['set']} F1 {row['f1']:.1f} ({', '.join(details)})"


def card_figures(card: ModelCard, results_path: str, shown: Optional[str] = None) -> Tuple[str, List[dict]]:
    """`(source, rows)` of the card's model in `results_path` (named `shown`, default the path, in
    the source): one row `{set, interface, questions, em, f1, f1_drop}` per test set of a study;
    for `allennlp evaluate` metrics one row, its `set` None."""
    shown = shown or results_path
    results = read_json(results_path, f"model {card.id!r}: no results file {results_path}; run its recipe's evaluation first")
    if isinstance(results, dict) and "pairs" in results:
        which, rows = study_figures(results, card)
        if not rows:
            raise InputError(f"{results_path}: the study ran no test set on {which}")
        return f"{results.get('study') or 'study'} ({shown}; {which})", rows
    if isinstance(results, dict) and all(isinstance(results.get(key), (int, float)) for key in ("em", "f1")):
        row = {"set": None, "interface": "clean", "questions": None, "em": 100 * results["em"], "f1": 100 * results["f1"],
               "f1_drop": None}
        return f"allennlp evaluate ({shown})", [row]
    raise InputError(
        f"{results_path}: neither a study's results.json (`pairs`) nor `allennlp evaluate` metrics (`em`, `f1`)"
    )


def results_text(card: ModelCard, results_path: str, shown: Optional[str] = None) -> str:
    """The card's figures from `results_path`, as one paragraph of text."""
    source, rows = card_figures(card, results_path, shown)
    if rows[0]["set"] is None:
        return f"{source}: EM {rows[0]['em']:.1f}, F1 {rows[0]['f1']:.1f}."
    return f"{source}: " + "; ".join(_figure(row) for row in rows) + "."


def fill_metrics(model_id: str, results_path: Optional[str] = None) -> str:
    """Writes the figures of `results_path` (default: the card's `model_usage.results`) into the
    card file's `quantitative_analyses.unitary_results`, and returns them."""
    card = model_card(model_id)
    path = results_path or repository_file(card.model_usage.results)
    if not path:
        raise InputError(f"model {model_id!r}: its card names no results file; give one")
    text = results_text(card, path, shown=results_path or card.model_usage.results)
    file = card_file(model_id)
    with open(file, encoding="utf-8") as handle:
        data = json.load(handle)
    data["quantitative_analyses"] = dict(data.get("quantitative_analyses") or {}, unitary_results=text)
    if results_path:
        data.setdefault("model_usage", {})["results"] = results_path
    write_text_atomic(file, json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return text


def fill_all_metrics() -> Dict[str, str]:
    """`fill_metrics` for every card whose results file is there: `{id: figures, or why not}` (a
    study that left a card's model out, such as an optional one, is a reason, not an error)."""
    done = {}
    for model_id, card in model_cards().items():
        path = repository_file(card.model_usage.results)
        if not path or not os.path.isfile(path):
            done[model_id] = f"skipped: no results file {card.model_usage.results or '(none named)'} yet"
            continue
        try:
            done[model_id] = fill_metrics(model_id)
        except InputError as error:
            done[model_id] = f"skipped: {error}"
    return done


def _cell(text: Optional[str]) -> str:
    return " ".join(str(text or "").split()).replace("|", "\\|")


# the interfaces of question-blind sets (every question blanked: what a model answers from the context alone)
FLOOR_INTERFACES = ("none", "blind")


def headline(card: ModelCard) -> Tuple[str, str]:
    """`(clean F1, mean drop)` of the card's archive in its results file, as table cells: F1 on the
    typed (`clean`) set, and the mean of clean F1 minus F1 over the noisy sets (those with a
    drop; question-blind floors left out). A model the study gave only spoken questions has no typed
    set, and the cell says so. `-` for a figure the results lack (or a study that left
    the model out, or a card that names no results file: a model that answers no question, such as
    a recogniser); both `not run yet` where the results file is not there."""
    if not card.model_usage.results:
        return "-", "-"
    path = repository_file(card.model_usage.results)
    if not path or not os.path.isfile(path):
        return "not run yet", "not run yet"
    try:
        rows = card_figures(card, path)[1]
    except InputError:  # a study that left this model out (an optional model)
        return "-", "-"
    clean = [row["f1"] for row in rows if row["interface"] == "clean"]
    drops = [row["f1_drop"] for row in rows if row["f1_drop"] is not None and row["interface"] not in FLOOR_INTERFACES]
    drop = f"{sum(drops) / len(drops):.1f} ({len(drops)} sets)" if drops else "-"
    if not clean and rows and all(row["interface"] == "speech" for row in rows):
        return "no typed set (spoken questions: its card)", drop
    return (f"{clean[0]:.1f}" if clean else "-"), drop


def short_time(time_here: Optional[str]) -> str:
    """A card's `time_here` up to its first parenthesis, semicolon or colon (`about 30 min (28 min 47 s
    measured ...)` → `about 30 min`): the table's cell; the card keeps the whole text."""
    return re.split(r" \(|; |: ", time_here or "-", maxsplit=1)[0].rstrip(" ,.") or "-"


def models_table(cards: Dict[str, ModelCard]) -> str:
    """The README's "Models" table: one row per card, in id order, each cell short (the command that
    makes the archive, `short_time`); the details are on the cards."""
    lines = ["| model | what it is | clean F1 | mean drop | made by | time here |", "|---|---|---:|---:|---|---|"]
    for model_id, card in sorted(cards.items()):
        usage = card.model_usage
        details = card.model_details
        what = (details.short_description or details.description) if details else card.display_name
        made = f"`{usage.command}`" if usage.command else "-"
        clean, drop = headline(card)
        lines.append("| " + " | ".join([f"`{model_id}`", _cell(what), clean, drop, _cell(made), _cell(short_time(usage.time_here))]) + " |")
    return "\n".join(lines) + "\n"


TABLE_START, TABLE_END = "<!-- models table -->", "<!-- /models table -->"


def table_into(markdown_file: str, cards: Dict[str, ModelCard]) -> str:
    """Writes `models_table(cards)` into `markdown_file` between its `<!-- models table -->` and
    `<!-- /models table -->` lines; returns the table."""
    try:
        with open(markdown_file, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        raise InputFileNotFound(markdown_file) from None
    start = text.find(TABLE_START + "\n")
    end = text.find(TABLE_END, start)
    if start < 0 or end < 0:
        raise InputError(f"{markdown_file}: no {TABLE_START} ... {TABLE_END} lines to write the models table between")
    table = models_table(cards)
    write_text_atomic(markdown_file, text[: start + len(TABLE_START) + 1] + table + text[end:])
    return table
