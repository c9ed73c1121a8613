"""Merge the file-id maps of several synthesized voices into a training map and a held-out map,
holding out whole articles of the SQuAD file, so that validation never hears a question, or reads
a paragraph, that training used:

    python recipes/e2e_cpu/split_spoken_ids.py runs/spoken_ctc/train9/fid2qid_{one,two,three}.csv \
        --squad-file runs/data/squad_dev_minus_xquad.json \
        --train runs/spoken_ctc/train9/fid2qid_train.csv --held-out runs/spoken_ctc/train9/fid2qid_heldout.csv

The held-out articles are by default those that the text configs hold out of the same source
(`--held-out-share 0.1 --held-out-seed 0`, `srcframework.data.article_split`), so that a text
model that initialises a spoken one never trained on the spoken model's validation articles;
`--held-out-articles N` holds out the last N articles of the SQuAD file instead. The training lines are shuffled with a
fixed seed (readers read lazily, a chunk at a time: in file order a chunk would be one voice).
`--per-question N` keeps at most N training utterances of each question (the first N of the
shuffle, so voices are drawn at random), e.g. one voice per question for a shorter epoch.
`--squad-file` may be a URL (read through AllenNLP's cache). `--audio-from FOLDER` links
FOLDER/wavs (and copies FOLDER/speakers.tsv) beside the maps written, for recordings kept
elsewhere (the SQuAD-SRC folder of recipes/squad_src_paper).
"""
import argparse
import csv
import json
import random
import sys
from collections import Counter
from pathlib import Path


def read_map(path: str) -> list:
    """(file id, question id) rows of a tab-separated fid2qid file."""
    with open(path, newline="") as f:
        rows = [row for row in csv.reader(f, delimiter="\t") if row]
    bad = [i + 1 for i, row in enumerate(rows) if len(row) != 2]
    if bad:
        raise SystemExit(f"{path}: line {bad[0]} is not 'file id<TAB>question id'")
    return [tuple(row) for row in rows]


def held_out_ids(squad_file: str, articles: int = 0, share: float = 0.1, seed: int = 0) -> set:
    """Question ids of the held-out articles of a SQuAD-format file: the last `articles` ones, or
    (`articles` 0) those that `article_split.held_out_titles(share, seed)` picks."""
    from allennlp.common.file_utils import cached_path

    dataset = json.loads(Path(cached_path(squad_file)).read_text())
    data = dataset["data"]
    if articles:
        if not 0 < articles < len(data):
            raise SystemExit(f"--held-out-articles must be between 1 and {len(data) - 1} ({squad_file} has {len(data)} articles)")
        chosen = data[-articles:]
    else:
        from srcframework.data.article_split import article_key, held_out_titles

        try:
            keys = held_out_titles(dataset, share, seed)
        except Exception as err:  # a ConfigurationError names the bad share
            raise SystemExit(f"{squad_file}: {err}") from None
        chosen = [article for i, article in enumerate(data) if article_key(i, article) in keys]
    return {qa["id"] for article in chosen for p in article["paragraphs"] for qa in p["qas"]}


def split(maps: list, held: set, seed: int = 13, per_question: int = 0) -> tuple:
    """(training rows shuffled, held-out rows in order) from the rows of all maps; with
    `per_question`, at most that many training rows of each question."""
    rows = [row for path in maps for row in read_map(path)]
    fids = [fid for fid, _ in rows]
    if len(set(fids)) != len(fids):
        raise SystemExit("the maps repeat a file id; give each voice its own --split when synthesizing")
    train = [row for row in rows if row[1] not in held]
    random.Random(seed).shuffle(train)
    if per_question:
        counts = Counter()
        kept = []
        for row in train:
            counts[row[1]] += 1
            if counts[row[1]] <= per_question:
                kept.append(row)
        train = kept
    return train, [row for row in rows if row[1] in held]


def link_audio(source: Path, folder: Path) -> None:
    """`folder/wavs` a link to `source/wavs`; `source/speakers.tsv` copied into `folder` where there is one."""
    import shutil

    if not (source / "wavs").is_dir():
        raise SystemExit(f"{source}/wavs: no such folder (the recordings are distributed apart from the id maps)")
    link = folder / "wavs"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to((source / "wavs").resolve())
    if (source / "speakers.tsv").is_file():
        shutil.copyfile(source / "speakers.tsv", folder / "speakers.tsv")


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("maps", nargs="+", help="fid2qid files, one per voice")
    parser.add_argument("--squad-file", required=True)
    parser.add_argument("--held-out-articles", type=int, default=0, help="hold out the last N articles (0: use --held-out-share)")
    parser.add_argument("--held-out-share", type=float, default=0.1, help="share of the questions in held-out articles")
    parser.add_argument("--held-out-seed", type=int, default=0, help="seed of the choice of held-out articles")
    parser.add_argument("--train", required=True, help="the training map to write")
    parser.add_argument("--held-out", required=True, help="the held-out map to write")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--per-question", type=int, default=0, help="at most this many training utterances a question (0: all)")
    parser.add_argument("--audio-from", help="link this folder's wavs/ (and copy its speakers.tsv) beside the maps written")
    args = parser.parse_args(argv)
    if args.per_question < 0:
        raise SystemExit("--per-question must be 0 (all) or more")
    train, held = split(args.maps, held_out_ids(args.squad_file, args.held_out_articles, args.held_out_share, args.held_out_seed), args.seed, args.per_question)
    from srcframework.data.squad_src_layout import write_fid2qid  # atomic, the layout's format

    folder = Path(args.train).parent
    folder.mkdir(parents=True, exist_ok=True)
    if args.audio_from:
        link_audio(Path(args.audio_from), folder)
    write_fid2qid(args.train, train)
    write_fid2qid(args.held_out, held)
    print(f"{args.train}: {len(train)} utterances; {args.held_out}: {len(held)} utterances")


if __name__ == "__main__":
    sys.exit(main())
