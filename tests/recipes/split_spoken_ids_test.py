import importlib.util
import json

import pytest

from tests.conftest import ROOT

SPEC = importlib.util.spec_from_file_location("split_spoken_ids", ROOT / "recipes" / "e2e_cpu" / "split_spoken_ids.py")
SCRIPT = importlib.util.module_from_spec(SPEC)
SPEC.loader.exec_module(SCRIPT)


@pytest.fixture
def voices(tmp_path):
    articles = [
        {"title": t, "paragraphs": [{"context": "c", "qas": [{"id": f"{t}{i}", "question": "q?", "answers": []} for i in range(3)]}]}
        for t in "abc"
    ]
    squad = tmp_path / "split.json"
    squad.write_text(json.dumps({"data": articles}))
    maps = []
    for voice in ("KAL", "SLT"):
        path = tmp_path / f"fid2qid_{voice}.csv"
        path.write_text("".join(f"{voice}{n:06d}\t{t}{i}\n" for n, (t, i) in enumerate((t, i) for t in "abc" for i in range(3))))
        maps.append(str(path))
    return squad, maps


def test_whole_articles_are_held_out_and_training_is_a_fixed_shuffle(voices, tmp_path):
    squad, maps = voices
    train, held = tmp_path / "train.csv", tmp_path / "held.csv"
    args = maps + ["--squad-file", str(squad), "--held-out-articles", "1", "--train", str(train), "--held-out", str(held)]
    SCRIPT.main(args)
    held_rows = [line.split("\t") for line in held.read_text().splitlines()]
    train_rows = [line.split("\t") for line in train.read_text().splitlines()]
    assert sorted(q for _, q in held_rows) == ["c0", "c0", "c1", "c1", "c2", "c2"]
    assert len(train_rows) == 12 and not {q for _, q in train_rows} & {"c0", "c1", "c2"}
    assert [f for f, _ in train_rows] != sorted(f for f, _ in train_rows)  # voices mixed
    first = train.read_text()
    SCRIPT.main(args)
    assert train.read_text() == first


def test_bad_maps_and_counts_are_clear_errors(voices, tmp_path):
    squad, maps = voices
    out = ["--train", str(tmp_path / "t"), "--held-out", str(tmp_path / "h")]
    with pytest.raises(SystemExit, match="between 1 and 2"):
        SCRIPT.main(maps + ["--squad-file", str(squad), "--held-out-articles", "3"] + out)
    with pytest.raises(SystemExit, match="repeat a file id"):
        SCRIPT.main([maps[0], maps[0], "--squad-file", str(squad)] + out)
    bad = tmp_path / "bad.csv"
    bad.write_text("KAL000001 a0\n")
    with pytest.raises(SystemExit, match="line 1 is not"):
        SCRIPT.main([str(bad), "--squad-file", str(squad)] + out)


def test_per_question_keeps_that_many_voices_of_each_question(voices, tmp_path):
    squad, maps = voices
    train = tmp_path / "one.csv"
    SCRIPT.main(maps + ["--squad-file", str(squad), "--held-out-articles", "1", "--per-question", "1", "--train", str(train), "--held-out", str(tmp_path / "h")])
    rows = [line.split("\t") for line in train.read_text().splitlines()]
    assert sorted(q for _, q in rows) == ["a0", "a1", "a2", "b0", "b1", "b2"]
    assert {f[:3] for f, _ in rows} == {"KAL", "SLT"}  # voices drawn, not the first map's
    with pytest.raises(SystemExit, match="--per-question must be"):
        SCRIPT.main(maps + ["--squad-file", str(squad), "--per-question", "-1", "--train", str(train), "--held-out", str(tmp_path / "h")])


def test_by_default_the_articles_the_text_configs_hold_out_validate(tmp_path):
    """The e2e recipe's spoken validation articles are those its text BiDAF held out (the squad_v1
    reader's `articles: held_out` with its default share and seed), so the text model that starts
    the e2e model never trained on them."""
    from allennlp.common import Params
    from allennlp.data import DatasetReader

    articles = [
        {"title": f"Article {k}", "paragraphs": [{"context": f"Fact number {k} is here.", "qas": [
            {"id": f"a{k}q{i}", "question": f"What is fact {k}?", "answers": [{"text": "Fact", "answer_start": 0}]}
            for i in range(2)]}]}
        for k in range(30)
    ]
    squad = tmp_path / "split.json"
    squad.write_text(json.dumps({"data": articles}))
    reader = DatasetReader.from_params(Params({"type": "squad_v1", "articles": "held_out"}))
    read = {instance["metadata"]["id"] for instance in reader.read(str(squad))}
    assert read and SCRIPT.held_out_ids(str(squad)) == read
    assert "--held-out-articles" not in (ROOT / "recipes" / "e2e_cpu" / "recipe.jsonnet").read_text()
