"""Figures stated in prose about a study, held to the study's results.json, so that no sentence
outlives a rerun with a figure the results no longer give.

The check reads the prose of `SCOPE`: README.md's Results, the results index, the Results (and
Corrections) of the studies' results pages, the recipe READMEs' Results and the model cards' prose
fields (`CARD_FIELDS`), less superseded history (`UNSCOPED`). The other results pages record
measurements made before the studies and are read for summary blocks only; a protocol, and the
dated notes under it, is the protocol's (its figures may be repeated in its results). Every figure
of the scope (a decimal such as 3.7, or a percentage; not a date, a version or a section number)
must be one of:

- inside a generated block: a results block of `markdown_into` (`<!-- results:NAME -->`, tables)
  or a summary block (`<!-- summary:STUDY -->` ... `<!-- /summary:STUDY -->`): prose rendered
  from `recipes/STUDY/summary.md`, a template whose placeholders name keys of the study's
  results.json (`render_summary`);
- a claim of `docs/claims.json`: the text right before the figures (`after`), the results.json
  and the keys the figures state (in order; `null` for a figure of the span that `not_results`
  declares), their `format` (default `.1f`) and `scale` (default 1); each figure must read what
  its key gives;
- declared in `docs/claims.json` as no figure of a study's results (`not_results`), with why
  (a measurement outside the study, a transcribed curve, a protocol's own margin).

A results.json may hold figures typed in by hand: validation curves whose source says
"transcribed" (the robust-training study's, copied from its page after the run folders were
gone). A block reproduces them, but they are not generated from a training, so the prose right
before a block that shows them must say they are transcribed (`transcribed_curves`).

A key is a path through results.json, its steps joined by `/`: a dict key, a list index, or
`field=value` (several joined by `&`) for the first list element whose fields hold those values
(`robustness/model=bidaf_augmented/clean/seed_test/difference`, `pairs/model=e2e&set=spoken_seen/f1`).

    python -m srcframework.studies.claims            # the problems, one a line (file:line: ...)
    python -m srcframework.studies.claims --write    # renders the summary blocks again first
"""
import argparse
import json
import math
import os
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

from srcframework.common.errors import InputError
from srcframework.metrics.statistics import LEVEL
from srcframework.studies.markdown_into import find_blocks

ROOT = Path(__file__).resolve().parents[2]
CLAIMS_FILE = "docs/claims.json"
# a decimal figure (3.7, -0.6, −3.8) or a percentage (44.8%, 30 %), not a date, a version or an integer
FIGURE = re.compile(r"(?<![\w.−-])[-+±−]?\d+(?:\.\d+)?\s?%|(?<![\w.−-])[-+±−]?\d+\.\d+(?!\w|\.\d)")
# the levels a design names, not measurements
LEVELS = {"95%", "90%", "80%", f"{LEVEL:g}", "0.8"}
SUMMARY = re.compile(r"^<!-- summary:(?P<name>[A-Za-z0-9_]+) -->$", re.MULTILINE)
PLACEHOLDER = re.compile(r"\{\{(?P<body>[^{}]+)\}\}")
# which prose of which file states a study's figures: Markdown files by the titles (H2 or H3) of
# their sections (a title starting with one of them; "*": the whole file), cards by field
SCOPE = {
    "README.md": ("Results",),
    "docs/results/index.md": ("*",),
    "docs/results/robust_training.md": ("Results", "Corrections"),
    "docs/results/e2e_cpu.md": ("Results",),
    "docs/results/listening.md": ("Results",),
    "docs/results/e2e_voices.md": ("Results",),
    "recipes/*/README.md": ("Results",),
}
CARD_FIELDS = (
    ("model_details", "short_description"),
    ("factors", "evaluation_factors"),
    ("metrics", "variation_approaches"),
    ("evaluation_data", "dataset", "notes"),
    ("model_caveats_and_recommendations", "caveats_and_recommendations"),
)
# sections of a scoped file that hold no study's figures: superseded history
UNSCOPED = ("Superseded", "History", "Earlier measurements")


@dataclass(frozen=True)
class Figure:
    file: str
    line: int
    text: str
    start: int  # offset in the file's checked text


REFERENCE = re.compile(r"(?:section|§|version|Python|torch) ?$", re.IGNORECASE)


def is_reference(text: str, start: int) -> bool:
    """Whether the number at `start` of `text` names a section or a version, not a figure."""
    return bool(REFERENCE.search(text[max(0, start - 8):start]))


def normal(figure: str) -> str:
    """A figure as compared: no leading `+`/`±`, `−` read as `-`, no space before `%`."""
    return figure.replace("−", "-").lstrip("+±").replace(" ", "")


def lookup(results: Any, key: str, where: str) -> Any:
    """The value at `key` (steps joined by `/`) of `results`; an InputError naming the step that fails."""
    value = results
    for step in key.split("/"):
        if isinstance(value, list) and "=" in step:
            wanted = dict(part.split("=", 1) for part in step.split("&"))
            found = [item for item in value if isinstance(item, dict)
                     and all(str(item.get(field)) == text for field, text in wanted.items())]
            if not found:
                raise InputError(f"{where}: key {key!r}: no element with {step}")
            value = found[0]
        elif isinstance(value, list) and step.lstrip("-").isdigit() and -len(value) <= int(step) < len(value):
            value = value[int(step)]
        elif isinstance(value, dict) and step in value:
            value = value[step]
        else:
            raise InputError(f"{where}: key {key!r}: no step {step!r}")
    return value


def formatted(value: Any, spec: str, where: str) -> str:
    """`value` as the prose states it: a format spec (`.1f`, `.3f`), `count` (a list's length) or
    `%` (a percentage with one decimal)."""
    if spec == "count":
        if not isinstance(value, list):
            raise InputError(f"{where}: format count needs a list, got {type(value).__name__}")
        return str(len(value))
    if not isinstance(value, (int, float)) or isinstance(value, bool) or not math.isfinite(value):
        raise InputError(f"{where}: not a number: {value!r}")
    if spec == "%":
        return f"{value:.1f}%"
    text = format(value, spec)
    return "0.0" if text == "-0.0" else text


# -- summary blocks -----------------------------------------------------------------------------


def _placeholder(body: str, results: dict, target: Path, where: str, root: Path = ROOT) -> str:
    parts = [part.strip() for part in body.split("|")]
    if parts[0].startswith("link:"):
        path = (root / parts[0][len("link:"):]).resolve()
        return Path(_relative(path, target.parent)).as_posix()
    value = lookup(results, parts[0], where)
    if len(parts) == 4 and parts[1].split(" ")[0] in ("below", "above"):
        side, bar = parts[1].split(" ", 1)
        if not isinstance(value, (int, float)):
            raise InputError(f"{where}: {parts[0]!r} is not a number: {value!r}")
        holds = value < float(bar) if side == "below" else value > float(bar)
        return parts[2] if holds else parts[3]
    if len(parts) != 2:
        raise InputError(f"{where}: {{{{{body}}}}}: write {{{{KEY|FORMAT}}}}, {{{{KEY|below X|YES|NO}}}} or {{{{link:PATH}}}}")
    return formatted(value, parts[1], where)


def _relative(path: Path, folder: Path) -> str:
    return os.path.relpath(path, folder.resolve())


def render_summary(study: str, target: Path, root: Path = ROOT) -> str:
    """The content of the summary block `study` of the Markdown file `target`: the template
    `recipes/STUDY/summary.md` with its placeholders filled from its results.json."""
    template_path = root / "recipes" / study / "summary.md"
    if not template_path.is_file():
        raise InputError(f"{target}: summary block {study!r}: no template {template_path.relative_to(root)}")
    template = template_path.read_text(encoding="utf-8")
    results_path = template_path.parent / "results.json"
    results = json.loads(results_path.read_text(encoding="utf-8"))
    where = str(template_path.relative_to(root))
    text = PLACEHOLDER.sub(lambda match: _placeholder(match.group("body"), results, target, where, root), template)
    return text.rstrip("\n") + "\n"


@dataclass(frozen=True)
class SummaryBlock:
    name: str
    start: int
    end: int
    content: str


def find_summaries(text: str, path: str) -> List[SummaryBlock]:
    found = []
    for opening in SUMMARY.finditer(text):
        name = opening.group("name")
        closing = text.find(f"\n<!-- /summary:{name} -->", opening.end())
        if closing < 0:
            raise InputError(f"{path}: summary block {name!r} has no closing <!-- /summary:{name} --> line")
        start = opening.end() + 1
        found.append(SummaryBlock(name, start, closing + 1, text[start:closing + 1]))
    return found


def write_summaries(path: Path, root: Path = ROOT) -> List[str]:
    """Renders every summary block of `path` again; returns the names of those that changed."""
    text = path.read_text(encoding="utf-8")
    changed = []
    for block in reversed(find_summaries(text, str(path))):
        content = render_summary(block.name, path, root)
        if content != block.content:
            text = text[:block.start] + content + text[block.end:]
            changed.append(block.name)
    if changed:
        from srcframework.common.files import write_text_atomic

        write_text_atomic(str(path), text)
    return changed


# -- the figures of the prose -------------------------------------------------------------------


def _at(name: str, line: int) -> str:
    """`file:line`, or `file#field` for a card's field (line 0)."""
    return f"{name}:{line}" if line else name


def _line(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


def _sections(text: str) -> List[Tuple[str, int, int]]:
    """`(title, start, end)` of each H2 and H3 section (text before the first: title "")."""
    heads = [(match.group(2).strip(), match.start(), len(match.group(1))) for match in
             re.finditer(r"^(##|###) (.+)$", text, re.MULTILINE)]
    found, position, title = [], 0, ""
    for head, start, _ in heads:
        found.append((title, position, start))
        title, position = head, start
    found.append((title, position, len(text)))
    return found


def _in_scope(text: str, titles: tuple) -> List[Tuple[int, int]]:
    """The spans of `text` whose nearest H2 (or H3) title starts with one of `titles` ("*": all),
    less the superseded history."""
    spans = []
    h2 = ""
    for title, start, end in _sections(text):
        if text.startswith("## ", start):
            h2 = title
        if h2.startswith(UNSCOPED) or title.startswith(UNSCOPED):
            continue
        if "*" in titles or title.startswith(titles) or h2.startswith(titles):
            spans.append((start, end))
    return spans


def _generated_spans(text: str, path: str) -> List[Tuple[int, int]]:
    spans = [(block.start, block.end) for block in find_blocks(text, path)]
    return spans + [(block.start, block.end) for block in find_summaries(text, path)]


def markdown_figures(text: str, path: str, titles: tuple) -> List[Figure]:
    """The figures of `text`'s scoped prose outside generated blocks and HTML comments."""
    generated = _generated_spans(text, path)
    comments = [(match.start(), match.end()) for match in re.finditer(r"<!--.*?-->", text, re.DOTALL)]
    skip = generated + comments
    figures = []
    for start, end in _in_scope(text, titles):
        for match in FIGURE.finditer(text, start, end):
            if any(low <= match.start() < high for low, high in skip) or is_reference(text, match.start()):
                continue
            figures.append(Figure(path, _line(text, match.start()), match.group(0), match.start()))
    return figures


def protocol_figures(text: str) -> frozenset:
    """The figures of a page's pre-registered protocol (its `## Protocol` section): its bars and
    margins, which its results may repeat."""
    found = set()
    for title, start, end in _sections(text):
        if title == "Protocol" and text.startswith("## ", start):
            following = re.search(r"^## ", text[start + 3:], re.MULTILINE)
            stop = start + 3 + following.start() if following else len(text)
            found |= {normal(figure) for figure in FIGURE.findall(text, start, stop)}
    return frozenset(found)


def card_texts(path: Path) -> Iterator[Tuple[str, str]]:
    """`(field path, text)` of each prose field of a model card."""
    data = json.loads(path.read_text(encoding="utf-8"))
    for field in CARD_FIELDS:
        value: Any = data
        for step in field:
            value = value.get(step) if isinstance(value, dict) else None
        if isinstance(value, str):
            yield ".".join(field), value


def scoped_files(root: Path = ROOT) -> List[Tuple[str, tuple]]:
    """`(file relative to root, titles)` of every Markdown file the check reads."""
    found = {}
    for pattern, titles in SCOPE.items():
        for path in sorted(root.glob(pattern)):
            found.setdefault(path.relative_to(root).as_posix(), titles)
    for path in sorted((root / "docs" / "results").glob("*.md")):
        found.setdefault(path.relative_to(root).as_posix(), ())
    return sorted(found.items())


# -- the check ----------------------------------------------------------------------------------


def load_claims(root: Path = ROOT) -> dict:
    path = root / CLAIMS_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InputError(f"{CLAIMS_FILE}: not found")
    except json.JSONDecodeError as err:
        raise InputError(f"{CLAIMS_FILE}: not JSON ({err})")
    for number, claim in enumerate(data.get("claims") or []):
        missing = {"file", "after", "results", "keys"} - set(claim)
        if missing:
            raise InputError(f"{CLAIMS_FILE}: claim {number} lacks {', '.join(sorted(missing))}")
    for number, entry in enumerate(data.get("not_results") or []):
        missing = {"file", "text", "why"} - set(entry)
        if missing:
            raise InputError(f"{CLAIMS_FILE}: not_results entry {number} lacks {', '.join(sorted(missing))}")
    return data


def _figures_after(text: str, offset: int, count: int) -> List[re.Match]:
    """The first `count` figures of `text` from `offset`, within its paragraph."""
    end = text.find("\n\n", offset)
    return list(FIGURE.finditer(text, offset, len(text) if end < 0 else end))[:count]


def _check_text(name: str, text: str, figures: List[Figure], claims: dict, root: Path,
                line_of=None, allowed: frozenset = frozenset()) -> List[str]:
    """The problems of one text: claims that fail, and figures neither generated, claimed nor
    declared (`allowed`: figures that the file's protocol states, its bars and margins)."""
    line_of = line_of or (lambda offset: _line(text, offset))
    problems, covered = [], set()
    for entry in claims.get("not_results") or []:
        if entry["file"] != name:
            continue
        at = text.find(entry["text"])
        if at < 0:
            problems.append(f"{name}: {CLAIMS_FILE} declares a text that is not there: {entry['text'][:60]!r}")
            continue
        covered.update(range(at, at + len(entry["text"])))
    results_cache: dict = {}
    for claim in claims.get("claims") or []:
        if claim["file"] != name:
            continue
        at = text.find(claim["after"])
        if at < 0:
            problems.append(f"{name}: {CLAIMS_FILE} claims figures after a text that is not there: {claim['after'][:60]!r}")
            continue
        keys, spec, scale = claim["keys"], claim.get("format", ".1f"), claim.get("scale", 1)
        found = _figures_after(text, at + len(claim["after"]), len(keys))
        path = claim["results"]
        if path not in results_cache:
            results_cache[path] = json.loads((root / path).read_text(encoding="utf-8"))
        for number, key in enumerate(keys):
            if key is None:  # a figure of the span that is no study's (declared in not_results)
                continue
            where = f"{CLAIMS_FILE}: {name}"
            found_value = lookup(results_cache[path], key, where)
            value = formatted(found_value * scale if isinstance(found_value, (int, float)) else found_value, spec, where)
            if number >= len(found):
                problems.append(f"{_at(name, line_of(at))}: after {claim['after'][-40:]!r} the text should say {value} "
                                f"({path}#{key}); it states no figure there")
                continue
            match = found[number]
            covered.add(match.start())
            if normal(match.group(0)) != normal(value):
                problems.append(f"{_at(name, line_of(match.start()))}: says {match.group(0)}, {path}#{key} gives {value}")
    for figure in figures:
        if figure.start in covered or normal(figure.text) in LEVELS | allowed:
            continue
        problems.append(f"{_at(name, figure.line)}: {figure.text} stands outside a generated block and is "
                        f"neither claimed nor declared in {CLAIMS_FILE}")
    return problems


def transcribed_curves(results: dict) -> List[str]:
    """The models whose validation curves `results` holds as transcribed by hand (a curve whose
    source says "transcribed"), not read from a training record."""
    return sorted({model["name"] for model in results.get("models") or []
                   for curve in model.get("validation_curves") or []
                   if curve and str(curve.get("source", "")).startswith("transcribed")})


def _unmarked_transcriptions(name: str, text: str, root: Path) -> List[str]:
    """A results block that shows transcribed validation curves, with no "transcribed" in the
    prose right before it: those figures are not generated from a training, and the page says so."""
    problems = []
    for block in find_blocks(text, name):
        if "validation_curves" not in block.tables or block.source is None:
            continue
        results = json.loads(((root / name).parent / block.source).read_text(encoding="utf-8"))
        models = transcribed_curves(results)
        opening = text.rfind("\n", 0, block.start - 1)
        if models and "transcribed" not in text[max(0, opening - 600):opening].lower():
            problems.append(f"{name}:{_line(text, opening + 1)}: results block {block.name!r} shows validation curves "
                            f"that {block.source} holds as transcribed by hand ({', '.join(models)}): say so before it")
    return problems


def check(root: Path = ROOT) -> List[str]:
    """Every problem of the prose, one a line: `file:line: what`."""
    claims = load_claims(root)
    problems = []
    for name, titles in scoped_files(root):
        text = (root / name).read_text(encoding="utf-8")
        problems += _unmarked_transcriptions(name, text, root)
        for block in find_summaries(text, name):
            if block.content != render_summary(block.name, root / name, root):
                problems.append(f"{name}:{_line(text, block.start)}: summary block {block.name!r} is not what "
                                f"recipes/{block.name}/results.json gives: python -m srcframework.studies.claims --write")
        if titles:
            problems += _check_text(name, text, markdown_figures(text, name, titles), claims, root,
                                    allowed=protocol_figures(text))
    for path in sorted((root / "srcframework" / "modelcards").glob("*.json")):
        name = path.relative_to(root).as_posix()
        for field, text in card_texts(path):
            figures = [Figure(name, 0, match.group(0), match.start()) for match in FIGURE.finditer(text)
                       if not is_reference(text, match.start())]
            problems += _check_text(f"{name}#{field}", text, figures, claims, root, line_of=lambda offset: 0)
    known = {name for name, _ in scoped_files(root)} | {
        f"{path.relative_to(root).as_posix()}#{'.'.join(field)}"
        for path in (root / "srcframework" / "modelcards").glob("*.json") for field in CARD_FIELDS}
    for entry in (claims.get("claims") or []) + (claims.get("not_results") or []):
        if entry["file"] not in known:
            problems.append(f"{CLAIMS_FILE}: {entry['file']} is no file (or card field) that the check reads")
    return problems


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m srcframework.studies.claims",
                                     description="Check that every figure stated in prose about a study is "
                                                 "generated from, or matched against, its results.json.")
    parser.add_argument("--write", action="store_true", help="render the summary blocks again before checking")
    args = parser.parse_args(argv)
    try:
        if args.write:
            for name, _ in scoped_files(ROOT):
                for study in write_summaries(ROOT / name, ROOT):
                    print(f"{name}: summary block {study!r} written")
        problems = check(ROOT)
    except InputError as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
