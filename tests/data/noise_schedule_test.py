"""The noise schedule: which questions get a noisy version depends on (noise_seed, epoch, id)
alone, so an augmented reader and its clean twin read the same number of instances."""
import copy
import json

import pytest
from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from allennlp.data import DatasetReader

import srcframework  # noqa: F401
from srcframework.data.noise_schedule import NoiseSchedule, NoiseScheduleStep, epoch_seed
from srcframework.noise.noise_source import question_rng

IDS = [f"q{i}" for i in range(80)]
CONTEXT = "Ada lives in Paris and works in Lyon ."


def squad_file(path, questions):
    qas = [{"id": q, "question": t, "answers": [{"text": "Paris", "answer_start": 13}]} for q, t in questions.items()]
    path.write_text(json.dumps({"version": "1.1", "data": [{"title": "t", "paragraphs": [{"context": CONTEXT, "qas": qas}]}]}))
    return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("schedule")
    clean = squad_file(folder / "clean.json", {q: "where does ada live" for q in IDS})
    asr = squad_file(folder / "asr.json", {q: "wear does a da live" for q in IDS[:70]})  # lacks ten
    typo = squad_file(folder / "typo.json", {q: "whree does ada live" for q in IDS})
    return clean, asr, typo


SCHEDULE = [{"from_epoch": 0, "share": 0.25}, {"from_epoch": 2, "share": 1.0, "weights": {"typo": 1}}]


def reader(**options):
    return DatasetReader.from_params(Params(copy.deepcopy({"type": "squad_v1", "noise_seed": 5, **options})))


def read(r, path, epoch):
    r.set_epoch(epoch)
    return [(i["metadata"]["id"], i["metadata"]["question"]) for i in r.read(path)]


def expected_drawn(epoch, share, seed=5):
    return {q for q in IDS if question_rng(epoch_seed(seed, epoch), q, "noise_share").random() < share}


def test_the_schedule_draws_by_epoch_and_the_clean_twin_reads_as_many_instances(files):
    clean, asr, typo = files
    augmented = reader(noisy_copies={"asr": asr, "typo": typo}, keep_clean=True, noise_schedule=SCHEDULE)
    twin = reader(keep_clean=True, noise_schedule=SCHEDULE)
    for epoch, share in ((0, 0.25), (1, 0.25), (2, 1.0), (3, 1.0)):
        noisy, matched = read(augmented, clean, epoch), read(twin, clean, epoch)
        drawn = expected_drawn(epoch, share)
        assert len(noisy) == len(matched) == len(IDS) + len(drawn)
        assert [q for q, _ in noisy] == [q for q, _ in matched]
        assert all(t == "where does ada live" for _, t in matched)
        seconds = [t for (q, t), (q2, _) in zip(noisy[1:], noisy) if q == q2]
        if epoch >= 2:  # only the typo copy has weight from epoch 2 on
            assert set(seconds) == {"whree does ada live"}
        else:  # a question the asr copy lacks is read clean, but still read twice
            assert set(seconds) <= {"wear does a da live", "whree does ada live", "where does ada live"}
    assert expected_drawn(0, 0.25) != expected_drawn(1, 0.25)


def test_the_same_epoch_reads_the_same_whatever_was_read_before(files):
    clean, asr, typo = files
    first = reader(noisy_copies={"asr": asr, "typo": typo}, keep_clean=True, noise_schedule=SCHEDULE)
    second = reader(noisy_copies={"asr": asr, "typo": typo}, keep_clean=True, noise_schedule=SCHEDULE)
    read(first, clean, 0)
    assert read(first, clean, 1) == read(second, clean, 1)


def test_without_the_epoch_reads_count_as_epochs(files, caplog):
    clean, asr, typo = files
    r = reader(noisy_copies={"asr": asr}, keep_clean=True, noise_schedule=SCHEDULE[:1])
    r2 = reader(noisy_copies={"asr": asr}, keep_clean=True, noise_schedule=SCHEDULE[:1])
    unset = [[(i["metadata"]["id"], i["metadata"]["question"]) for i in r.read(clean)] for _ in range(2)]
    assert unset == [read(r2, clean, 0), read(r2, clean, 1)]
    assert "reader_epoch" in caplog.text


def test_online_noise_is_seeded_by_epoch(files):
    clean, _, _ = files
    options = {"question_noise": {"type": "keyboard", "word_probability": 1.0}}
    a, b = reader(**options), reader(**options)
    a.set_epoch(3)
    b.set_epoch(3)
    assert [i["metadata"]["question"] for i in a.read(clean)] == [i["metadata"]["question"] for i in b.read(clean)]
    b.set_epoch(4)
    first = [i["metadata"]["question"] for i in a.read(clean)]
    assert first != [i["metadata"]["question"] for i in b.read(clean)]


def test_epoch_seeds_do_not_collide_across_noise_seeds():
    assert epoch_seed(1, 1) != epoch_seed(2, 0)
    assert len({epoch_seed(s, e) for s in range(10) for e in range(10)}) == 100


@pytest.mark.parametrize(
    "steps, names, message",
    [
        ([], None, "at least one step"),
        ([{"from_epoch": 1, "share": 0.5}], None, "must start at 0"),
        ([{"from_epoch": 0, "share": 0.5}, {"from_epoch": 0, "share": 1}], None, "must start at 0 and increase"),
        ([{"from_epoch": 0, "share": 0.5, "weights": {"asr": 1}}], ["typo"], r"unknown copies \['asr'\]; known: typo"),
        ([{"from_epoch": 0, "share": 0.5, "weights": {"asr": 0}}], ["asr"], "not all zero"),
    ],
)
def test_bad_schedules_are_one_clear_error(steps, names, message):
    with pytest.raises(ConfigurationError, match=message):
        NoiseSchedule([NoiseScheduleStep(**s) for s in steps], names)


@pytest.mark.parametrize("step", [{"from_epoch": 0, "share": 1.5}, {"from_epoch": -1, "share": 0.5}, {"from_epoch": 0, "share": 0.5, "weights": {"a": -1}}])
def test_bad_steps_are_one_clear_error(step):
    with pytest.raises(ConfigurationError, match="noise_schedule"):
        NoiseScheduleStep(**step)


def test_a_schedule_without_noise_needs_keep_clean_and_excludes_noisy_copy_weights(files):
    with pytest.raises(ConfigurationError, match="needs `keep_clean`"):
        reader(noise_schedule=SCHEDULE[:1])
    with pytest.raises(ConfigurationError, match="not both"):
        reader(noisy_copies={"asr": files[1]}, noisy_copy_weights={"asr": 1}, noise_schedule=SCHEDULE[:1])
