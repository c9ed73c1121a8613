"""`make_challenge_set` and its parts: what is noised, what is kept, what the file records, resumption
and shards. The `allennlp noise` command line is tested in tests/commands/noise_test.py."""
import json

import pytest
from allennlp.common.checks import ConfigurationError

import srcframework.noise  # noqa: F401  (registers the noise sources)
from srcframework.jobs.challenge_set import apply_noise, collect_questions, config_key, make_challenge_set
from srcframework.noise.noise_source import NoiseSource
from tests.conftest import FIXTURES, ROOT

DEFAULT_TRAIN = ROOT / "srcframework" / "data" / "default" / "train.json"
TINY = FIXTURES / "squad_tiny.json"


def questions(path):
    data = json.load(open(path, encoding="utf-8"))
    return {qa["id"]: qa for a in data["data"] for p in a["paragraphs"] for qa in p["qas"]}


def two_articles():
    return {"version": "1.1", "data": [
        {"title": "A", "paragraphs": [{"context": "c1", "qas": [
            {"id": "a1", "question": "Who?", "answers": []},
            {"id": "a2", "question": "garbled", "original_question": "When?", "answers": []},
        ]}]},
        {"title": "B", "paragraphs": [{"context": "c2", "qas": [{"id": "b1", "question": "Where?", "answers": []}]}]},
    ]}


def test_an_original_question_is_what_gets_noised():
    assert collect_questions(two_articles()) == [("a1", "Who?"), ("a2", "When?"), ("b1", "Where?")]


def test_apply_noise_keeps_the_clean_question_and_drops_what_a_shard_does_not_hold():
    noised = {"a1": "Whi?", "a2": "Whem?", "b1": "Wjere?"}
    out = apply_noise(two_articles(), noised, {"seed": 1})
    assert out["noise"] == {"seed": 1} and out["version"] == "1.1"
    qas = out["data"][0]["paragraphs"][0]["qas"]
    assert [(qa["question"], qa["original_question"]) for qa in qas] == [("Whi?", "Who?"), ("Whem?", "When?")]
    assert out["data"][0]["paragraphs"][0]["context"] == "c1" and out["data"][0]["title"] == "A"
    shard = apply_noise(two_articles(), {"b1": "Wjere?"}, {}, keep_ids={"b1"})
    assert [a["title"] for a in shard["data"]] == ["B"]  # an article left without questions is dropped


def test_the_key_depends_on_the_config_the_seed_and_the_input_only():
    key = config_key({"type": "keyboard", "word_probability": 0.5}, 0, "abc")
    assert key == config_key({"word_probability": 0.5, "type": "keyboard"}, 0, "abc")  # key order does not matter
    assert len(key) == 16
    assert len({key, config_key({"type": "keyboard"}, 0, "abc"), config_key({"type": "keyboard", "word_probability": 0.5}, 1, "abc"),
                config_key({"type": "keyboard", "word_probability": 0.5}, 0, "abd")}) == 4


def test_the_file_records_the_config_as_given_and_as_resolved(tmp_path, monkeypatch):
    (tmp_path / "list.txt").write_text("teh->the\n", encoding="utf-8")
    source = tmp_path / "in.json"
    source.write_text(json.dumps(two_articles()))
    monkeypatch.chdir(tmp_path)
    config = {"type": "misspelling", "path": "list.txt"}  # relative, and word_probability left to its default
    result = make_challenge_set("in.json", "out.json", config, seed=4, progress=False)
    assert result == {"questions": 3, "noised_now": 3, "complete": True, "output": "out.json"}
    noise = json.loads((tmp_path / "out.json").read_text())["noise"]
    assert noise["config"] == config
    assert noise["resolved"] == {"type": "misspelling", "path": str(tmp_path / "list.txt"), "word_probability": 1.0}
    assert (noise["seed"], noise["input"]) == (4, "in.json") and len(noise["key"]) == 16


def test_noise_applies_to_the_original_question(tmp_path):
    data = two_articles()
    data["data"][0]["paragraphs"][0]["qas"][1]["original_question"] = "When was the harbour built?"
    source = tmp_path / "in.json"
    source.write_text(json.dumps(data))
    (tmp_path / "list.txt").write_text("teh->the\n", encoding="utf-8")
    out = tmp_path / "out.json"
    make_challenge_set(str(source), str(out), {"type": "misspelling", "path": str(tmp_path / "list.txt")}, progress=False)
    noised = questions(out)["a2"]
    assert noised["question"] == "When was teh harbour built?"
    assert noised["original_question"] == "When was the harbour built?"


def test_blank_noise_and_a_resolved_default(tmp_path):
    out = tmp_path / "out.json"
    make_challenge_set(str(TINY), str(out), {"type": "blank"}, progress=False)
    written = json.loads(out.read_text())
    assert written["noise"]["resolved"] == {"type": "blank", "token": "?"}
    assert {qa["question"] for qa in questions(out).values()} == {"?"}
    assert set(questions(out)) == set(questions(TINY))


@pytest.mark.parametrize("shard", [(2, 2), (-1, 2), (0, 0)])
def test_a_bad_shard_is_a_configuration_error_before_any_work(tmp_path, shard):
    with pytest.raises(ConfigurationError, match="shard must be i/n"):
        make_challenge_set(str(TINY), str(tmp_path / "out.json"), {"type": "keyboard"}, shard=shard, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_an_unknown_noise_type_fails_before_any_work(tmp_path):
    with pytest.raises(ConfigurationError, match="no-such-noise"):
        make_challenge_set(str(TINY), str(tmp_path / "out.json"), {"type": "no-such-noise"}, progress=False)
    assert list(tmp_path.iterdir()) == []


def test_a_rerun_noises_nothing_and_writes_the_same_bytes(tmp_path):
    out = tmp_path / "out.json"
    first = make_challenge_set(str(TINY), str(out), {"type": "keyboard"}, seed=2, batch_size=2, progress=False)
    written = out.read_bytes()
    # a journal left by a killed run holds the first two questions: only the rest is noised again
    again = tmp_path / "again.json"
    journal = tmp_path / "again.json.journal-0-of-1.jsonl"
    key = json.loads(written)["noise"]["key"]
    done = [{"id": qid, "noised": qa["question"]} for qid, qa in list(questions(out).items())[:2]]
    journal.write_text("\n".join(json.dumps(row) for row in [{"key": key}] + done) + "\n")
    resumed = make_challenge_set(str(TINY), str(again), {"type": "keyboard"}, seed=2, batch_size=2, progress=False)
    assert (first["noised_now"], resumed["noised_now"]) == (9, 7)
    assert again.read_bytes() == written and not journal.exists()


@pytest.mark.slow
def test_same_result_with_workers_batches_and_shards(tmp_path):
    reference = tmp_path / "ref.json"
    make_challenge_set(str(DEFAULT_TRAIN), str(reference), {"type": "keyboard"}, seed=3, progress=False)
    parallel = tmp_path / "par.json"
    make_challenge_set(str(DEFAULT_TRAIN), str(parallel), {"type": "keyboard"}, seed=3, workers=2, batch_size=7, progress=False)
    assert questions(parallel) == questions(reference)
    sharded = tmp_path / "sharded.json"
    first = make_challenge_set(str(DEFAULT_TRAIN), str(sharded), {"type": "keyboard"}, seed=3, shard=(0, 2), progress=False)
    assert not first["complete"] and not sharded.exists()
    assert first["output"] == str(tmp_path / "sharded.json.shard-0-of-2.json")
    part = questions(tmp_path / "sharded.json.shard-0-of-2.json")
    assert 0 < len(part) < len(questions(reference))
    last = make_challenge_set(str(DEFAULT_TRAIN), str(sharded), {"type": "keyboard"}, seed=3, shard=(1, 2), progress=False)
    assert questions(sharded) == questions(reference)  # the last shard completes the whole set
    assert last["complete"] and last["output"] == str(sharded)


def test_journal_of_another_config_is_refused(tmp_path):
    out = tmp_path / "x.json"
    (tmp_path / "x.json.journal-0-of-1.jsonl").write_text(json.dumps({"key": "other"}) + "\n")
    with pytest.raises(ValueError, match="another noise configuration"):
        make_challenge_set(str(FIXTURES / "squad_tiny.json"), str(out), {"type": "keyboard"}, progress=False)


def test_a_noise_file_changed_since_a_journal_was_written_is_another_job(tmp_path, monkeypatch):
    """The key covers the files the noise config names: shard 0 journaled with one misspelling list,
    the list changed, shard 1's run refuses shard 0's journal instead of mixing the two lists."""
    from srcframework.common.files import file_sha256

    monkeypatch.chdir(tmp_path)
    (tmp_path / "list.txt").write_text("teh->the\n", encoding="utf-8")
    (tmp_path / "in.json").write_text(json.dumps(two_articles()))
    config = {"type": "misspelling", "path": "list.txt"}
    before = config_key(config, 0, file_sha256("in.json"))
    make_challenge_set("in.json", "out.json", config, shard=(0, 2), progress=False)
    assert (tmp_path / "out.json.journal-0-of-2.jsonl").exists()
    (tmp_path / "list.txt").write_text("wen->when\n", encoding="utf-8")
    assert config_key(config, 0, file_sha256("in.json")) != before
    assert config_key({"type": "keyboard"}, 0, "x") == config_key({"type": "keyboard"}, 0, "x")
    with pytest.raises(ConfigurationError, match="journal-0-of-2.jsonl belongs to another noise configuration"):
        make_challenge_set("in.json", "out.json", config, shard=(1, 2), progress=False)
    (tmp_path / "out.json.journal-0-of-2.jsonl").unlink()
    make_challenge_set("in.json", "out.json", config, progress=False)
    noise = json.loads((tmp_path / "out.json").read_text())["noise"]
    assert noise["files"] == {"list.txt": file_sha256("list.txt")}
    assert noise["input_path"] == str(tmp_path / "in.json") and noise["input_sha256"] == file_sha256("in.json")


def test_keys_of_noise_that_names_no_file_are_unchanged():
    """Adding the noise files to the key left the keys of other sets as they were (study caches
    keyed on them stay valid)."""
    assert config_key({"type": "keyboard"}, 0, "abc") == "f1fe462700168317"


CALLS = []


@NoiseSource.register("counting-calls-test")
class CountingCalls(NoiseSource):
    """Records how many questions each call gets."""

    batch_size = 5

    def noise(self, questions, seed=0, ids=None):
        CALLS.append(len(questions))
        return [q.upper() for q in questions]


def test_each_call_gets_the_sources_batch_size_unless_one_is_given(tmp_path):
    CALLS.clear()
    make_challenge_set(str(DEFAULT_TRAIN), str(tmp_path / "a.json"), {"type": "counting-calls-test"}, progress=False)
    count = len(questions(DEFAULT_TRAIN))
    assert CALLS == [5] * (count // 5) + ([count % 5] if count % 5 else [])
    CALLS.clear()
    make_challenge_set(str(DEFAULT_TRAIN), str(tmp_path / "b.json"), {"type": "counting-calls-test"}, batch_size=64,
                       progress=False)
    assert max(CALLS) == 64 and sum(CALLS) == count
    assert json.load(open(tmp_path / "a.json"))["data"] == json.load(open(tmp_path / "b.json"))["data"]
    # back-translation starts two engine processes a call, so it takes larger batches
    from srcframework.noise.back_translation import BackTranslationNoise

    assert BackTranslationNoise.batch_size == 256 and NoiseSource.batch_size == 16
