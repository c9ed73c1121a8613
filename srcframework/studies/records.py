"""A study's per-question record, and the study's analysis again from that record alone.

The record is one xz-compressed tar file (`pairs.tar.xz`, beside a recipe's committed
results.json) of what `allennlp compare` keeps in `OUT/pairs`:

```
pairs/inputs.json                          what the analysis reads besides the pairs (below)
pairs/<model>__<set>/predictions.jsonl     one record a question: id, prediction, gold answers,
                                           groups (country, gender, speaker), question,
                                           original_question
pairs/<model>__<set>/scores.json           the pair's key, accent report and question noise
pairs/<model>__<set>/seed<i>/...           the same for a model's further archives (seeds)
```

`inputs.json` holds what `collection.study_inputs` read from the archives and the sets' files
when the study ran: each model's archive paths, training records, random seeds and validation
curves (`models`); each set's data and original paths and the noise configuration its file
records (`test_sets`); and the context (paragraph) id of every question a pair scored
(`contexts`: what the bootstrap and the tests resample, from the sets' SQuAD files).

`pack_records(OUT, TARGET)` (`python -m srcframework.studies.records OUT TARGET`) writes the
record of a study's output folder: the files of the pairs
its results.json lists and `inputs.json`, sorted by name, each with a fixed time (`MTIME`), owner
0/0 and mode 0644, so that packing the same pairs again gives the same bytes. The recipes'
`report` job writes it beside the results.json it commits.

`reanalyse_records(STUDY, RECORD, OUT)` (`allennlp compare STUDY --reanalyse RECORD -o OUT`)
computes the study's results again from the record: every interval, test, set group, seed
inference and variance component, and the tables, figures and report. It opens no model archive,
reads no data file and runs no step: the study file gives the pairs, the sets' interfaces and
references, the comparisons and the declared groups; the record gives everything else. A pair
the study runs and the record lacks is one `InputError` naming the pair. The resamples are
seeded (`--seed`, `--bootstrap`, `--permutations` and `--bootstrap-unit` as the study's run was
given them: results.json's `statistics` names them), so the results equal the run's exactly:
`allennlp compare`'s results.json records no command, time or machine beyond the archive and data
paths the record keeps, so no key differs.
"""
import argparse
import io
import json
import os
import sys
import tarfile
import tempfile
from typing import Dict, List, Optional

from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import write_bytes_atomic, write_text_atomic
from srcframework.studies.analysis import AnalysisOptions
from srcframework.studies.pairs import PREDICTIONS_NAME, SCORES_NAME, pair_name
from srcframework.studies.study import Study

INPUTS_NAME = "inputs.json"
INPUTS_FORMAT = 1
RECORDS_NAME = "pairs.tar.xz"
MTIME = 1767225600  # 2026-01-01 00:00:00 UTC: every member's time, so a repack gives the same bytes
XZ_PRESET = 6


def inputs_text(inputs: dict) -> str:
    return json.dumps({"format": INPUTS_FORMAT, **inputs}, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def write_inputs(out_dir: str, inputs: dict) -> None:
    """`OUT/pairs/inputs.json`, written atomically where its bytes would change."""
    path = os.path.join(out_dir, "pairs", INPUTS_NAME)
    text = inputs_text(inputs)
    if os.path.isfile(path):
        with open(path, encoding="utf-8") as handle:
            if handle.read() == text:
                return
    write_text_atomic(path, text)


def read_inputs(path: str, where: str) -> dict:
    """A record's `inputs.json`; a missing, unreadable or incomplete one is an `InputError`."""
    if not os.path.isfile(path):
        raise InputError(f"{where}: no pairs/{INPUTS_NAME}: the record does not say what the analysis read besides the "
                         "pairs (archives' training records, the sets' files, the questions' contexts); pack it again "
                         "from a study folder that `allennlp compare` assembled")
    try:
        with open(path, encoding="utf-8") as handle:
            inputs = json.load(handle)
    except (UnicodeDecodeError, json.JSONDecodeError) as err:
        raise InputError(f"{where}: pairs/{INPUTS_NAME} is not JSON: {err}") from None
    missing = [key for key in ("models", "test_sets", "contexts") if not isinstance(inputs.get(key), dict)]
    if missing or inputs.get("format") != INPUTS_FORMAT:
        raise InputError(f"{where}: pairs/{INPUTS_NAME} lacks {', '.join(missing) or f'format {INPUTS_FORMAT}'}")
    return inputs


def record_members(results: dict) -> List[str]:
    """The files of a study's record, relative to its output folder, sorted: `pairs/inputs.json`
    and each pair's (and each further seed's) predictions and scores, as `results` lists them."""
    seeds = {model["name"]: len(model.get("archives") or [None]) for model in results.get("models", [])}
    members = [f"pairs/{INPUTS_NAME}"]
    for pair in results.get("pairs", []):
        for seed in range(seeds.get(pair["model"], 1)):
            folder = f"pairs/{pair_name(pair['model'], pair['set'], seed)}"
            members += [f"{folder}/{PREDICTIONS_NAME}", f"{folder}/{SCORES_NAME}"]
    return sorted(members)


def pack_bytes(root: str, members: List[str]) -> bytes:
    """An xz-compressed tar of the files `members` (relative to `root`), in sorted order, with a
    fixed time, owner and mode: the same files give the same bytes."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w:xz", format=tarfile.PAX_FORMAT, preset=XZ_PRESET) as tar:
        for member in sorted(members):
            with open(os.path.join(root, member), "rb") as handle:
                payload = handle.read()
            info = tarfile.TarInfo(member)
            info.size, info.mtime, info.mode = len(payload), MTIME, 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(payload))
    return buffer.getvalue()


def record_bytes(out_dir: str) -> bytes:
    """The record of the study assembled in `out_dir` (its results.json and pairs), packed. A
    pair file the results list and the folder lacks is an `InputError` naming it."""
    results_path = os.path.join(out_dir, "results.json")
    if not os.path.isfile(results_path):
        raise InputFileNotFound(f"missing {results_path}: run the study first")
    with open(results_path, encoding="utf-8") as handle:
        results = json.load(handle)
    members = record_members(results)
    missing = [member for member in members if not os.path.isfile(os.path.join(out_dir, member))]
    if missing:
        hint = ("assemble the study again with this version (`allennlp compare STUDY -o OUT`, cached pairs run nothing)"
                if missing[0].endswith(INPUTS_NAME) else "rerun the study")
        raise InputError(f"{out_dir}: no {missing[0]}{f' ({len(missing) - 1} more missing)' if len(missing) > 1 else ''}"
                         f" for the record: {hint}")
    return pack_bytes(out_dir, members)


def pack_records(out_dir: str, target: str) -> int:
    """Write the record of the study assembled in `out_dir` to `target` (`record_bytes`);
    returns its size in bytes."""
    payload = record_bytes(out_dir)
    write_bytes_atomic(target, payload)
    return len(payload)


def _extract(record: str, folder: str) -> None:
    """The record's regular files under `pairs/` into `folder` (nothing else, nothing outside it)."""
    try:
        with tarfile.open(record, mode="r:*") as tar:
            members = [m for m in tar.getmembers() if m.isfile() or m.isdir()]
            for member in members:
                parts = member.name.replace("\\", "/").lstrip("./").split("/")
                if os.path.isabs(member.name) or ".." in parts or parts[0] != "pairs":
                    raise InputError(f"{record}: {member.name!r} is not a file of a study's pairs/ folder")
            tar.extractall(folder, members=members, filter="data")
    except (tarfile.TarError, EOFError, OSError) as err:
        raise InputError(f"{record}: not a readable tar file: {err}") from None


def reanalyse_records(study: Study, record: str, out_dir: str, analysis: Optional[AnalysisOptions] = None) -> Dict:
    """The study's results from its record alone (the module docstring), written into `out_dir`
    with the tables, figures and report; returns the results."""
    from srcframework.studies.collection import collect_results_and_inputs
    from srcframework.studies.outputs import write_outputs

    if not os.path.isfile(record):
        raise InputFileNotFound(f"--reanalyse: not found: {record}")
    with tempfile.TemporaryDirectory(prefix="srcframework-record-") as folder:
        _extract(record, folder)
        inputs = read_inputs(os.path.join(folder, "pairs", INPUTS_NAME), record)
        results, _ = collect_results_and_inputs(study, folder, analysis=analysis, inputs=inputs, where=record)
    os.makedirs(out_dir, exist_ok=True)
    write_outputs(results, out_dir)
    return results


def main(argv: Optional[List[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m srcframework.studies.records",
                                     description="Pack the per-question record of a study that `allennlp compare` "
                                                 "assembled (its pairs and pairs/inputs.json), deterministically.")
    parser.add_argument("out_dir", help="the study's output folder (results.json and pairs/)")
    parser.add_argument("target", help="the record to write, e.g. pairs.tar.xz")
    args = parser.parse_args(argv)
    try:
        size = pack_records(args.out_dir, args.target)
    except InputError as err:
        print(f"error: {' '.join(str(err).split())}", file=sys.stderr)
        return 1
    print(f"per-question record: {args.target} ({size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
