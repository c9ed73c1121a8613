"""`report.html`: a study's tables and figures on one self-contained page (the PNGs beside it are
linked with relative `<img src>`, so the folder can be moved or served as it is).

After the page has loaded, a small inline script counts the images that decoded
(`complete && naturalWidth > 0`) and writes the count into the `data-images-loaded` attribute of
`<body>`, beside `data-images-total`; a headless browser's `--dump-dom` then shows whether every
figure rendered.

A score built on few questions is not as firm as the others: in a table that knows the questions
behind each cell (per country, gender, question type, length, WER bucket) each score shows its
count (`n=12`), and one of fewer than `FEW_QUESTIONS` questions is greyed out.

Below the figures, "Example flips" lists for each noisy pair some questions that the noise turned
from right to wrong and from wrong to right: the clean and the noisy question, the gold answers
and both predictions.
"""
from html import escape
from typing import List, Optional

from srcframework.studies.cells import Table, format_cell
from srcframework.studies.tables import results_tables

STYLE = """
body { font-family: sans-serif; margin: 2em; color: #222; }
table { border-collapse: collapse; margin: 0.5em 0 0.3em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ddd; }
th { background: #f3f3f3; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.few { color: #aaa; }
span.n { color: #888; font-size: 0.8em; margin-left: 0.3em; }
p.note { color: #666; font-size: 0.9em; margin-top: 0; }
figure { margin: 1em 0; }
img { max-width: 100%; border: 1px solid #eee; }
""".strip()

CHECK_SCRIPT = """
window.addEventListener("load", function () {
  var images = Array.prototype.slice.call(document.images);
  var loaded = images.filter(function (image) { return image.complete && image.naturalWidth > 0; });
  document.body.setAttribute("data-images-loaded", String(loaded.length));
});
""".strip()

CAPTIONS = {
    "f1_by_country.png": "F1 by country of the speaker, one series per model.",
    "f1_vs_wer.png": "F1 against the questions' WER, one point per country or test set.",
    "robustness_drop.png": "F1 drop from the model's clean set, per noisy test set.",
    "f1_intervals.png": "F1 per test set and model with its bootstrap interval.",
    "f1_by_wer_bucket.png": "F1 by the question's WER bucket with bootstrap intervals, per noisy test set.",
}
DIRECTIONS = (("right_to_wrong", "right on the clean set, wrong on this one"),
              ("wrong_to_right", "wrong on the clean set, right on this one"))


FEW_QUESTIONS = 30  # a score of fewer questions is greyed out


def _number_cell(cell, count: Optional[int]) -> str:
    """A number's `<td>`; with `count`, the questions behind it, greyed out when they are few."""
    text = escape(format_cell(cell))
    if count is None or cell is None:
        return f'<td class="num">{text}</td>'
    few = " few" if count < FEW_QUESTIONS else ""
    return f'<td class="num{few}">{text}<span class="n">n={count}</span></td>'


def html_table(table: Table) -> str:
    lines = [f'<table id="{escape(table.name)}">', "<thead>"]
    if table.groups:
        cells = "".join(f'<th colspan="{span}">{escape(label)}</th>' for label, span in table.groups)
        lines.append(f"<tr>{cells}</tr>")
    lines.append("<tr>" + "".join(f"<th>{escape(cell)}</th>" for cell in table.header) + "</tr>")
    lines += ["</thead>", "<tbody>"]
    for number, row in enumerate(table.rows):
        counts = table.counts[number] if table.counts else [None] * len(row)
        cells = "".join(
            f"<td>{escape(format_cell(cell))}</td>" if i < table.first else _number_cell(cell, counts[i])
            for i, cell in enumerate(row)
        )
        lines.append(f"<tr>{cells}</tr>")
    lines += ["</tbody>", "</table>"]
    lines += [f'<p class="note">{escape(note)}</p>' for note in table.notes]
    if table.counts:
        lines.append(f'<p class="note">n: the questions behind a score; greyed out: fewer than {FEW_QUESTIONS}, '
                     "too few for a firm score.</p>")
    return "\n".join(lines)


def _answer(text: Optional[str]) -> str:
    return "(no answer)" if text is None else str(text)


def examples_html(results: dict) -> List[str]:
    """The "Example flips" section: one table per noisy pair that has flips."""
    parts = []
    for entry in results.get("examples", []):
        rows = []
        for key, label in DIRECTIONS:
            for example in entry.get(key, []):
                cells = [label, example["clean_question"], _answer(example["noisy_question"]),
                         " | ".join(example["answers"]), _answer(example["clean_prediction"]),
                         _answer(example["noisy_prediction"])]
                rows.append("<tr>" + "".join(f"<td>{escape(cell)}</td>" for cell in cells) + "</tr>")
        if not rows:
            continue
        parts.append(f"<h3>{escape(entry['model'])} on {escape(entry['set'])} (against {escape(entry['reference'])})</h3>")
        header = ["Flip", "Clean question", "Noisy question", "Gold answers", "Clean prediction", "Noisy prediction"]
        parts += [f'<table class="examples" id="examples-{escape(entry["model"])}-{escape(entry["set"])}">',
                  "<thead><tr>" + "".join(f"<th>{cell}</th>" for cell in header) + "</tr></thead>", "<tbody>"]
        parts += rows + ["</tbody>", "</table>"]
    if not parts:
        return []
    right = escape((results.get("statistics") or {}).get("right", "exact match 1"))
    return ["<h2>Example flips</h2>", f'<p class="note">Right: {right}.</p>'] + parts


def report_html(results: dict, images: List[str]) -> str:
    """The page for `results` with `images` (file names beside report.html) as figures."""
    title = f"Study: {results['study']}"
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en">',
        "<head>",
        '<meta charset="utf-8">',
        f"<title>{escape(title)}</title>",
        f"<style>\n{STYLE}\n</style>",
        f"<script>\n{CHECK_SCRIPT}\n</script>",
        "</head>",
        f'<body data-images-total="{len(images)}" data-images-loaded="pending">',
        f"<h1>{escape(title)}</h1>",
        "<p>Models: " + ", ".join(escape(m["name"]) for m in results["models"]) + ". Test sets: "
        + ", ".join(escape(s["name"]) for s in results["test_sets"]) + ". Scores are SQuAD v1.1 EM/F1 (%).</p>",
    ]
    for table in results_tables(results):
        parts += [f"<h2>{escape(table.title)}</h2>", html_table(table)]
    parts += ["<h2>Figures</h2>"] if images else []
    for name in images:
        caption = CAPTIONS.get(name, name)
        parts.append(
            f'<figure><img src="{escape(name)}" alt="{escape(caption)}"><figcaption>{escape(caption)}</figcaption></figure>'
        )
    parts += examples_html(results)
    parts += ["</body>", "</html>"]
    return "\n".join(parts) + "\n"
