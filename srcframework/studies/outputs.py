"""A study's output files from its results: results.json, the tables (results.md, results.csv,
results.tex), the plots and report.html."""
import json
import os
from typing import List

from srcframework.common.files import write_bytes_atomic


def write_outputs(results: dict, out_dir: str) -> List[str]:
    """results.json, the tables, the plots and report.html, each written atomically once all are
    rendered; a file whose bytes would not change is left as it is, and a figure an earlier run
    drew that these results leave out (nothing to show) is removed. Returns the names written,
    in order."""
    from srcframework.studies.html_report import report_html
    from srcframework.studies.plots import PLOT_NAMES, render_plots
    from srcframework.studies.results_csv import results_csv
    from srcframework.studies.results_markdown import results_markdown
    from srcframework.studies.results_tex import results_tex

    files = {"results.json": (json.dumps(results, indent=1, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")}
    files["results.md"] = results_markdown(results).encode("utf-8")
    files["results.csv"] = results_csv(results).encode("utf-8")
    files["results.tex"] = results_tex(results).encode("utf-8")
    images = render_plots(results)
    files.update(images)
    files["report.html"] = report_html(results, list(images)).encode("utf-8")
    for name, payload in files.items():
        path = os.path.join(out_dir, name)
        if os.path.isfile(path):
            with open(path, "rb") as handle:
                if handle.read() == payload:
                    continue
        write_bytes_atomic(path, payload)
    for name in PLOT_NAMES:
        if name not in images and os.path.isfile(os.path.join(out_dir, name)):
            os.remove(os.path.join(out_dir, name))
    return list(files)
