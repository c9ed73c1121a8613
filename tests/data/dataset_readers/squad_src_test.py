import json
import logging
import os
import shutil

import numpy
import pytest
import soundfile
from allennlp.common import Params
from allennlp.data import DatasetReader, Vocabulary
from allennlp.data.data_loaders import MultiProcessDataLoader
from allennlp.data.samplers import BucketBatchSampler

from srcframework.data.audio_indexers.audio_indexer import AudioTooLong, WaveformIndexer
from srcframework.data.dataset_readers.squad_src import SquadSrcReader
from srcframework.data.errors import DatasetError
from srcframework.data.fields.audio_field import AudioField, padding_fraction
from srcframework.data.squad_src_layout import Speaker, wav_name, write_fid2qid, write_speaker_table
from srcframework.common.audio import write_wav_atomic
from srcframework.speech.flite import FliteSynthesizer
from tests.conftest import FIXTURES
from tests.data.audio_perturbation_test import sox_on_path

QIDS = ["q1", "q2", "q3", "q4", "q5", "q6"]
FIDS = [f"DEV{n:06d}" for n in range(1, 7)]
VOICES = {"SPK001": "slt", "SPK011": "kal16", "SPK016": "awb"}  # India F, US M, UK M
SPEAKERS = list(VOICES) * 2


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    """A SQuAD-SRC-style folder: six questions of squad_tiny.json spoken by three flite voices."""
    folder = tmp_path_factory.mktemp("squad_src") / "src"
    questions = {}
    for article in json.loads((FIXTURES / "squad_tiny.json").read_text())["data"]:
        for paragraph in article["paragraphs"]:
            questions.update({qa["id"]: qa["question"] for qa in paragraph["qas"]})
    synthesizers = {speaker: FliteSynthesizer(voice) for speaker, voice in VOICES.items()}
    for fid, qid, speaker in zip(FIDS, QIDS, SPEAKERS):
        waveform, rate = synthesizers[speaker].synthesize(questions[qid])
        write_wav_atomic(folder / "wavs" / wav_name(fid, speaker), waveform, rate)
    write_fid2qid(folder / "fid2qid_dev.csv", list(zip(FIDS, QIDS)))
    shutil.copy(FIXTURES / "squad_tiny.json", folder / "squad_dev.json")
    return folder


@pytest.fixture
def folder(built, tmp_path):
    """A private copy of the built folder, free to damage."""
    return shutil.copytree(built, tmp_path / "src")


def wav(folder, index):
    return folder / "wavs" / wav_name(FIDS[index], SPEAKERS[index])


def read(folder, path=None, **kwargs):
    reader = SquadSrcReader(**kwargs)
    return reader, list(reader.read(str(path or folder / "fid2qid_dev.csv")))


def test_reads_spoken_questions_with_spans_and_groups(built, caplog):
    with caplog.at_level(logging.INFO):
        reader, instances = read(built)
    assert [i["metadata"]["id"] for i in instances] == QIDS
    assert reader.last_skipped == {} and reader.last_unlisted == 3
    assert "3 questions of" in caplog.text and "read 6 spoken questions" in caplog.text
    first = instances[0]
    meta = first["metadata"].metadata
    assert (meta["fid"], meta["speaker"], meta["country"], meta["gender"]) == ("DEV000001", "SPK001", "India", "F")
    assert instances[1]["metadata"]["country"] == "US" and instances[1]["metadata"]["gender"] == "M"
    assert instances[2]["metadata"]["country"] == "UK"
    assert meta["question"] == "When was the harbour of Velmont dredged?"
    assert meta["answers"] == ["1882"] and meta["extra"]["title"]
    tokens = [t.text for t in first["context"].tokens]
    assert tokens[first["span_start"].sequence_index : first["span_end"].sequence_index + 1] == ["1882"]
    s, e = meta["context_offsets"][first["span_start"].sequence_index][0], meta["context_offsets"][first["span_end"].sequence_index][1]
    assert meta["context"][s:e] == "1882"
    for index, instance in enumerate(instances):
        question = instance["question"]
        assert isinstance(question, AudioField) and question.sample_rate == 16000
        assert numpy.array_equal(question.waveform, WaveformIndexer().prepare(wav(built, index)))
        assert instance["metadata"]["duration"] == pytest.approx(soundfile.info(wav(built, index)).duration)
        assert instance["metadata"]["audio"] == str(wav(built, index))
        assert 1.0 < question.duration < 6.0


def test_folder_path_and_split(built, tmp_path):
    _, from_csv = read(built)
    _, from_folder = read(built, path=built)
    assert [i["metadata"]["id"] for i in from_folder] == QIDS
    assert from_folder[0]["question"] == from_csv[0]["question"]
    folder = shutil.copytree(built, tmp_path / "two")
    shutil.copy(folder / "fid2qid_dev.csv", folder / "fid2qid_train.csv")
    with pytest.raises(DatasetError, match="expected one fid2qid_<split>.csv .* found fid2qid_dev.csv, fid2qid_train.csv"):
        read(folder, path=folder)
    with pytest.raises(DatasetError, match="no SQuAD file"):
        read(folder, path=folder, split="train")
    shutil.copy(folder / "squad_dev.json", folder / "squad.json")
    assert len(read(folder, path=folder, split="train")[1]) == 6
    with pytest.raises(DatasetError, match="fid2qid file of split 'test' not found"):
        read(folder, path=folder, split="test")
    with pytest.raises(DatasetError, match="not found: expected a SQuAD-SRC folder"):
        read(folder, path=folder / "nowhere")


def test_config_keys_squad_file_template_and_speakers(folder, tmp_path):
    (folder / "squad_dev.json").rename(tmp_path / "dev.json")
    params = {
        "type": "squad_src",
        "squad_file": str(tmp_path / "{split}.json"),
        "audio_indexer": {"type": "waveform", "max_seconds": 1.0, "normalize": False},
        "speakers": {"SPK001": {"country": "Atlantis", "gender": "X"}},
        "passage_length_limit": 400,
    }
    reader = DatasetReader.from_params(Params(params))
    instances = list(reader.read(str(folder / "fid2qid_dev.csv")))
    assert isinstance(reader, SquadSrcReader) and len(instances) == 6
    assert all(len(i["question"]) == 16000 for i in instances)
    assert instances[0]["metadata"]["country"] == "Atlantis"
    assert instances[1]["metadata"]["country"] == "US"
    with pytest.raises(ValueError, match="named groups 'fid' and 'speaker'"):
        SquadSrcReader(file_pattern=r"(?P<fid>\w+)\.wav")
    with pytest.raises(ValueError, match="needs 'country' and 'gender'"):
        SquadSrcReader(speakers={"SPK001": {"country": "x"}})


def test_batches_feed_bucketed_audio(built):
    reader = SquadSrcReader()
    instances = list(reader.read(str(built / "fid2qid_dev.csv")))
    vocab = Vocabulary.from_instances(instances)
    sampler = BucketBatchSampler(batch_size=2, sorting_keys=["question"], padding_noise=0.0)
    loader = MultiProcessDataLoader(reader, str(built / "fid2qid_dev.csv"), batch_sampler=sampler)
    loader.index_with(vocab)
    lengths = sorted(len(i["question"]) for i in instances)
    batches = list(loader)
    assert len(batches) == 3
    seen = []
    for batch in batches:
        question = batch["question"]
        assert question["waveform"].shape == question["mask"].shape and question["waveform"].dim() == 2
        sizes = question["mask"].sum(1).tolist()
        assert question["waveform"].shape[1] == max(sizes)
        assert set(batch) >= {"context", "question", "span_start", "span_end", "metadata"}
        seen.append(sorted(sizes))
    assert sorted(seen) == [lengths[0:2], lengths[2:4], lengths[4:6]]  # neighbours in duration
    assert padding_fraction(seen) <= padding_fraction([lengths[0::3], lengths[1::3], lengths[2::3]])


def test_resamples_8k_and_downmixes_stereo(folder):
    narrow, rate = FliteSynthesizer("kal").synthesize("Who dredged the harbour?")
    assert rate == 8000
    write_wav_atomic(wav(folder, 1), narrow, 8000)
    stereo, _ = FliteSynthesizer("slt").synthesize("Where does the ferry go?")
    soundfile.write(wav(folder, 2), numpy.stack([stereo, 0.5 * stereo], axis=1), 16000, subtype="FLOAT")
    _, instances = read(folder, audio_indexer=WaveformIndexer(normalize=False))
    assert len(instances[1]["question"]) == 2 * len(narrow)
    assert instances[1]["question"].duration == pytest.approx(len(narrow) / 8000)
    assert numpy.allclose(instances[2]["question"].waveform, 0.75 * stereo, atol=1e-6)


def test_length_cap_truncate_skip_error(folder):
    _, whole = read(folder)
    durations = [i["question"].duration for i in whole]
    cap = float(numpy.median(durations))
    longer = sum(d > cap for d in durations)
    assert 0 < longer < 6
    _, truncated = read(folder, audio_indexer=WaveformIndexer(max_seconds=cap))
    assert [len(i["question"]) for i in truncated] == [min(len(i["question"]), round(cap * 16000)) for i in whole]
    reader, kept = read(folder, audio_indexer=WaveformIndexer(max_seconds=cap, overflow="skip"))
    assert len(kept) == 6 - longer and reader.last_skipped == {"audio longer than max_seconds": longer}
    with pytest.raises(AudioTooLong, match=r"DEV\d{6}_SPK\d{3}\.wav: .* longer than max_seconds"):
        read(folder, audio_indexer=WaveformIndexer(max_seconds=cap, overflow="error"))


def damage_missing(folder):
    os.remove(wav(folder, 3))
    return "no recording of file id 'DEV000004'", "missing audio file", str(folder / "wavs")


def damage_empty(folder):
    wav(folder, 3).write_bytes(b"")
    return "audio file is empty", "empty or unreadable audio file", str(wav(folder, 3))


def damage_corrupt(folder):
    wav(folder, 3).write_bytes(b"RIFF" + os.urandom(300))
    return "cannot read audio file", "empty or unreadable audio file", str(wav(folder, 3))


def damage_unknown_question(folder):
    write_fid2qid(folder / "fid2qid_dev.csv", list(zip(FIDS, QIDS[:3] + ["nope"] + QIDS[4:])))
    return "file id 'DEV000004' maps to question id 'nope'", "question id not in the SQuAD file", str(folder / "fid2qid_dev.csv")


def damage_name(folder):
    shutil.copy(wav(folder, 0), folder / "wavs" / "question7.wav")
    return "does not match file_pattern", "audio file name does not match file_pattern", str(folder / "wavs" / "question7.wav")


def damage_speaker(folder):
    wav(folder, 3).rename(folder / "wavs" / wav_name(FIDS[3], "SPK099"))
    return "speaker 'SPK099' is not in the SQuAD-SRC speaker table", "speaker not in the speaker table", "SPK099.wav"


def damage_duplicate_fid(folder):
    write_fid2qid(folder / "fid2qid_dev.csv", list(zip(FIDS, QIDS)) + [(FIDS[0], "q7")])
    return "file id 'DEV000001' is listed twice", "file id listed twice in fid2qid", str(folder / "fid2qid_dev.csv")


def damage_second_recording(folder):
    shutil.copy(wav(folder, 3), folder / "wavs" / wav_name(FIDS[3], "SPK024"))
    return "file id 'DEV000004' already has a recording", "second recording of a file id", "DEV000004_SPK024.wav"


@pytest.mark.parametrize(
    "damage",
    [damage_missing, damage_empty, damage_corrupt, damage_unknown_question, damage_name, damage_speaker, damage_duplicate_fid, damage_second_recording],
)
@pytest.mark.parametrize("threads", [1, 3])
def test_bad_input_raises_naming_the_file_or_is_a_counted_skip(folder, damage, threads, caplog):
    message, reason, named = damage(folder)
    with pytest.raises(DatasetError) as error:
        read(folder, loading_threads=threads)
    assert message in str(error.value) and named in str(error.value)
    with caplog.at_level(logging.WARNING):
        reader, instances = read(folder, skip_invalid=True, loading_threads=threads)
    assert reader.last_skipped == {reason: 1}
    assert f"skipped 1 (1 {reason})" in caplog.text
    expected = 6 if reason in ("audio file name does not match file_pattern", "file id listed twice in fid2qid", "second recording of a file id") else 5
    assert len(instances) == expected


def test_malformed_fid2qid_and_missing_files(folder):
    (folder / "fid2qid_dev.csv").write_text("DEV000001\tq1\nDEV000002 q2\n")
    with pytest.raises(DatasetError, match=r"fid2qid_dev.csv: line 2: expected 'file id<TAB>question id'"):
        read(folder)
    write_fid2qid(folder / "fid2qid_dev.csv", list(zip(FIDS, QIDS)))
    shutil.rmtree(folder / "wavs")
    with pytest.raises(DatasetError, match="wavs: audio folder not found"):
        read(folder)
    (folder / "squad_dev.json").unlink()  # without a SQuAD file of the folder's own to fall back on
    with pytest.raises(DatasetError, match="nothing.json: file not found"):
        read(folder, squad_file=str(folder / "nothing.json"))


def test_a_named_squad_file_that_is_not_there_gives_way_to_the_folders_own(folder, tmp_path, caplog, tiny_archive):
    """An archive's reader names the SQuAD file it was trained with; at test time it reads the
    folder it is given, whose own SQuAD file holds the questions."""
    training_file = str(tmp_path / "runs" / "data" / "squad_train_split.json")
    with caplog.at_level(logging.WARNING):
        reader, instances = read(folder, squad_file=training_file)
    assert [i["metadata"]["id"] for i in instances] == QIDS
    assert f"squad_file {training_file} is not there; reading the folder's own SQuAD file {folder / 'squad_dev.json'}" in caplog.text
    # a named file that is there is the one read, even where the folder has its own
    (tmp_path / "named.json").write_text(json.dumps({"version": "1.1", "data": []}))
    with pytest.raises(DatasetError, match="maps to question id 'q1', which .*named.json does not hold"):
        read(folder, squad_file=str(tmp_path / "named.json"))
    # unless the folder's own comes first, as the span_qa predictor asks of its reader
    assert len(read(folder, squad_file=str(tmp_path / "named.json"), folder_squad_file_first=True)[1]) == 6
    reader = DatasetReader.from_params(Params({"type": "squad_src", "squad_file": str(tmp_path / "named.json")}))
    from allennlp.predictors import Predictor

    from srcframework.predictors.span_qa import SpanQAPredictor

    SpanQAPredictor(Predictor.from_path(tiny_archive, "span_qa")._model, reader)
    assert reader.folder_squad_file_first and len(list(reader.read(str(folder / "fid2qid_dev.csv")))) == 6


def test_every_question_listed_when_required(folder):
    with pytest.raises(DatasetError, match=r"squad_dev.json: 3 questions of .* have no row in .*fid2qid_dev.csv \(first: \['q7', 'q8', 'q9'\]\)"):
        read(folder, require_all_questions=True)
    write_fid2qid(folder / "fid2qid_dev.csv", [(f"DEV{n:06d}", f"q{n}") for n in range(1, 10)])
    reader, instances = read(folder, require_all_questions=True, skip_invalid=True)
    assert len(instances) == 6 and reader.last_skipped == {"missing audio file": 3} and reader.last_unlisted == 0


def test_speaker_table_in_folder_and_argument(folder, tmp_path):
    wav(folder, 3).rename(folder / "wavs" / wav_name(FIDS[3], "SPK900"))
    write_speaker_table(folder / "speakers.tsv", [Speaker("SPK900", "Iceland", "F", "slt")] + [Speaker(s, "Here", "M") for s in VOICES])
    _, instances = read(folder)
    assert instances[3]["metadata"]["country"] == "Iceland" and instances[0]["metadata"]["country"] == "Here"
    os.rename(folder / "speakers.tsv", tmp_path / "table.tsv")
    _, instances = read(folder, speaker_table=str(tmp_path / "table.tsv"))
    assert instances[3]["metadata"]["gender"] == "F"
    (tmp_path / "bad.tsv").write_text("speaker\tcountry\nSPK900\tIceland\n")
    with pytest.raises(DatasetError, match=r"bad.tsv: the header lacks the column\(s\) \['gender'\]"):
        read(folder, speaker_table=str(tmp_path / "bad.tsv"))
    with pytest.raises(DatasetError, match="speaker 'SPK900' is not in the SQuAD-SRC speaker table"):
        read(folder)


def test_passage_length_limit_is_a_counted_skip(built):
    reader, instances = read(built, passage_length_limit=5)
    assert reader.last_skipped["answer lies beyond passage_length_limit"] == 6 - len(instances) > 0


def test_text_to_instance_for_a_predictor(built):
    reader = SquadSrcReader()
    context = "The harbour was dredged in 1882 by the Velmont Company."
    instance = reader.text_to_instance(str(wav(built, 0)), context, ["1882"], [27], question_id="x", speaker="SPK016")
    assert instance["metadata"]["country"] == "UK" and instance["metadata"]["gender"] == "M"
    assert instance["context"].tokens[instance["span_start"].sequence_index].text == "1882"
    waveform, rate = FliteSynthesizer("kal").synthesize("When was the harbour dredged?")
    from_memory = reader.text_to_instance(waveform, context, sample_rate=rate)
    assert len(from_memory["question"]) == 2 * len(waveform) and "span_start" not in from_memory.fields
    assert from_memory["metadata"]["id"] is None and from_memory["metadata"]["audio"] is None
    skipping = SquadSrcReader(audio_indexer=WaveformIndexer(max_seconds=0.5, overflow="skip"))
    assert skipping.text_to_instance(str(wav(built, 0)), context) is None


def test_audio_perturbation_is_drawn_by_epoch_and_file_id(built):
    from srcframework.data.audio_perturbation import AudioPerturbation

    def waves(epoch, reader=None):
        reader = reader or SquadSrcReader(audio_perturbation=AudioPerturbation(), noise_seed=3)
        reader.set_epoch(epoch)
        instances = list(reader.read(str(built / "fid2qid_dev.csv")))
        return [(i["metadata"]["perturbation"], i["question"].waveform) for i in instances]

    first, again = waves(0), waves(0)
    assert [s for s, _ in first] == [s for s, _ in again]
    assert all(numpy.array_equal(a, b) for (_, a), (_, b) in zip(first, again))
    other = waves(1)
    assert [s for s, _ in first] != [s for s, _ in other]
    _, plain = read(built)
    for (settings, waveform), instance in zip(first, plain):
        assert 0.9 <= settings["speed"] <= 1.1 and -200 <= settings["pitch"] <= 200 and -6 <= settings["gain_db"] <= 6
        # a faster utterance is shorter, a slower one longer
        ratio = waveform.size / instance["question"].waveform.size
        assert abs(ratio - 1 / settings["speed"]) < 0.02
        assert "perturbation" not in instance["metadata"].metadata


def test_loading_threads_read_the_same_instances_in_the_same_order(built):
    def instances(threads):
        reader = DatasetReader.from_params(Params({
            "type": "squad_src", "audio_perturbation": {}, "noise_seed": 3, "loading_threads": threads,
        }))
        reader.set_epoch(2)
        return list(reader.read(str(built / "fid2qid_dev.csv")))

    one, three = instances(1), instances(3)
    assert [i["metadata"]["fid"] for i in three] == [i["metadata"]["fid"] for i in one] == FIDS
    for a, b in zip(one, three):
        assert a["metadata"]["perturbation"] == b["metadata"]["perturbation"]
        assert numpy.array_equal(a["question"].waveform, b["question"].waveform)
        assert a["metadata"]["context"] == b["metadata"]["context"]


@pytest.mark.parametrize("threads", [0, -1, 1.5, "2", True])
def test_bad_loading_threads_is_one_clear_error(threads):
    with pytest.raises(ValueError, match=r"^squad_src: loading_threads must be a whole number of at least 1, got"):
        SquadSrcReader(loading_threads=threads)


@pytest.mark.parametrize("options, message", [
    ({"speed": [1.2, 1.1]}, "speed must be"), ({"pitch": [0, 5000]}, "pitch must be"),
    ({"gain_db": "loud"}, "gain_db must be"), ({"probability": 2}, "probability must be"),
])
def test_bad_perturbation_ranges_are_one_clear_error(options, message):
    from srcframework.common.errors import InputError
    from srcframework.data.audio_perturbation import AudioPerturbation

    with pytest.raises(InputError, match=message):
        AudioPerturbation(**options)


@pytest.mark.parametrize("threads", [1, 2])
def test_a_recording_sox_always_crashes_on_is_read_unperturbed_and_named(built, tmp_path, monkeypatch, caplog, threads):
    from srcframework.data.audio_perturbation import SOX_ATTEMPTS, AudioPerturbation

    def instances():
        reader = SquadSrcReader(audio_perturbation=AudioPerturbation(), noise_seed=3, loading_threads=threads)
        reader.set_epoch(0)
        return list(reader.read(str(built / "fid2qid_dev.csv")))

    perturbed = instances()
    speed = perturbed[0]["metadata"]["perturbation"]["speed"]
    # SoX dies by SIGSEGV on the first recording's settings, every time; the others are the real SoX
    sox_on_path(tmp_path, monkeypatch, 'echo "${12}" >> COUNT\n'
             f'if [ "${{11}}" = speed ] && [ "${{12}}" = "{speed}" ]; then kill -SEGV $$; fi\nexec REAL_SOX "$@"')
    with caplog.at_level(logging.WARNING):
        read_again = instances()
    assert (tmp_path / "runs").read_text().split().count(str(speed)) == SOX_ATTEMPTS
    _, plain = read(built)
    assert numpy.array_equal(read_again[0]["question"].waveform, plain[0]["question"].waveform)
    assert "perturbation" not in read_again[0]["metadata"].metadata
    for again, before in zip(read_again[1:], perturbed[1:]):
        assert again["metadata"]["perturbation"] == before["metadata"]["perturbation"]
        assert numpy.array_equal(again["question"].waveform, before["question"].waveform)
    [warning] = [r.getMessage() for r in caplog.records if "read unperturbed" in r.getMessage()]
    assert warning.startswith(str(wav(built, 0)) + ": read unperturbed: sox was killed by signal 11 on each of 3 runs")


def test_a_sox_error_names_the_recording(built, tmp_path, monkeypatch):
    from srcframework.data.audio_perturbation import AudioPerturbation

    sox_on_path(tmp_path, monkeypatch, 'echo "no such effect" >&2\nexit 2')
    reader = SquadSrcReader(audio_perturbation=AudioPerturbation(), noise_seed=3)
    with pytest.raises(RuntimeError, match=rf"^{wav(built, 0)}: sox failed \(exit 2\): no such effect"):
        list(reader.read(str(built / "fid2qid_dev.csv")))


def test_ctc_targets_are_the_normalised_characters_of_each_question(built):
    from allennlp.data import Batch

    from srcframework.speech.speecht5_ctc_network import CHARACTERS, normalize_transcript

    _, plain = read(built)
    _, instances = read(built, ctc_targets=True)
    assert all("question_targets" not in instance.fields for instance in plain)
    for instance in instances:
        text = instance["metadata"]["question"]
        ids = instance["question_targets"].tensor.tolist()
        assert "".join(CHARACTERS[i] for i in ids) == normalize_transcript(text) != ""
        assert 0 not in ids  # the blank is never a target
    # a batch pads each row with -1, past its own characters
    Batch(instances).index_instances(Vocabulary())
    targets = Batch(instances).as_tensor_dict()["question_targets"]
    lengths = [len(instance["question_targets"].tensor) for instance in instances]
    assert targets.shape == (6, max(lengths)) and min(lengths) < max(lengths)
    assert [(row >= 0).sum().item() for row in targets] == lengths
    assert all((row[length:] == -1).all() for row, length in zip(targets, lengths))


def test_ctc_targets_of_a_typed_question_with_accents_and_a_question_without_text(built):
    reader = SquadSrcReader(ctc_targets=True)
    context = "The harbour was dredged in 1882 by the Velmont Company."
    instance = reader.text_to_instance(str(wav(built, 0)), context, question="Who dredged Zürich’s harbour in 1882?")
    from srcframework.speech.speecht5_ctc_network import CHARACTERS

    assert "".join(CHARACTERS[i] for i in instance["question_targets"].tensor.tolist()) == "who dredged zurich's harbour in 1882"
    with pytest.raises(ValueError, match="ctc_targets needs the question's text, and question 'x' has none"):
        reader.text_to_instance(str(wav(built, 0)), context, question_id="x")
