"""Building a challenge set: a SQuAD-format file whose questions went through a noise source.

The work is journaled so that a killed run loses nothing and redoes nothing: each finished batch
of (question id, noised question) pairs is appended to `OUTPUT.journal-<shard>.jsonl` and
fsynced; a rerun reads every journal of the same output and configuration and noises only what is
missing. Noise depends only on (seed, question), so a resumed run writes exactly what an
uninterrupted one would. The output file is written atomically (temporary file, then rename) and
the journals are removed once it is complete.

With `shard=(i, n)` a run noises every n-th question starting at i and writes
`OUTPUT.shard-i-of-n.json`; a later run without a shard finds the shards' journals and only
assembles `OUTPUT`.

The file records its noise under `"noise"`: `config` (the params it was asked for, which the key
is made from), `resolved` (the source's own `describe()`: defaults filled in, local paths
absolute), `seed`, `input` (the input file's name), `input_path` and `input_sha256`, `files` (the
fingerprints of the files and folders the config names, e.g. a misspelling list or a natural-noise
set) and `key`.

The key (`config_key`) covers the noise config, the seed, the input file's sha256 and the
fingerprints of the files the config names, so a journal left by a run on another input, or with
a noise file that has changed since, is refused rather than mixed into the output; and a finished
challenge set made with another key is not replaced unless `force` (`--force`) says so.
"""
import copy
import glob
import json
import logging
import os
from typing import Dict, List, Optional, Tuple

from allennlp.common import Params
from allennlp.common.checks import ConfigurationError
from tqdm import tqdm

from srcframework.common.errors import InputError
from srcframework.common.files import file_sha256, named_files, text_sha256, write_json_atomic
from srcframework.common.journal import JournalWriter, locks_journal, read_journal
from srcframework.common.logs import params_not_logged
from srcframework.common.worker_pool import worker_results
from srcframework.data.errors import DatasetError
from srcframework.data.squad_file import load_squad_json
from srcframework.noise.noise_source import NoiseSource

logger = logging.getLogger(__name__)


def config_key(noise_params: dict, seed: int, input_sha256: str) -> str:
    """The key of a challenge set: its noise params, seed and input file's sha256, and the
    fingerprints of the files and folders the params name (`named_files`; left out when there are
    none, so the keys of sets whose noise names no file are those they always were)."""
    payload = {"noise": noise_params, "seed": seed, "input": input_sha256}
    files = named_files(noise_params)
    if files:
        payload["noise_files"] = files
    return text_sha256(json.dumps(payload, sort_keys=True))[:16]


def resolved_config(source: NoiseSource) -> dict:
    """`source.describe()`, checked to be JSON before any question is noised."""
    described = source.describe()
    try:
        return json.loads(json.dumps(described))
    except (TypeError, ValueError) as err:
        raise TypeError(f"{type(source).__name__}.describe() is not JSON: {err}") from None


def collect_questions(dataset: dict) -> List[Tuple[str, str]]:
    """(id, clean question) for every question; a NoiseQA-style `original_question` wins."""
    pairs = []
    for article in dataset["data"]:
        for paragraph in article["paragraphs"]:
            for qa in paragraph["qas"]:
                pairs.append((qa["id"], qa.get("original_question", qa["question"])))
    return pairs


def read_journals(output_path: str, key: str) -> Dict[str, str]:
    """`{question id: noised question}` from every shard's journal of `output_path`."""
    done: Dict[str, str] = {}
    for journal in sorted(glob.glob(glob.escape(output_path) + ".journal-*.jsonl")):
        rows = read_journal(journal, key, "another noise configuration, seed or input file")
        done.update((row["id"], row["noised"]) for row in rows)
    return done


_WORKER_SOURCE: Optional[NoiseSource] = None


def _init_worker(noise_params: dict) -> None:
    global _WORKER_SOURCE
    # `make_challenge_set` built the same source first and AllenNLP logged its parameters then:
    # they are not logged again (in this process that would be inside the progress bar)
    with params_not_logged():
        _WORKER_SOURCE = NoiseSource.from_params(Params(copy.deepcopy(noise_params)))


def _noise_batch(job: Tuple[List[Tuple[str, str]], int]) -> List[Tuple[str, str]]:
    batch, seed = job
    noised = _WORKER_SOURCE.noise([q for _, q in batch], seed=seed, ids=[i for i, _ in batch])
    if len(noised) != len(batch):
        raise RuntimeError(f"noise source returned {len(noised)} questions for {len(batch)}")
    return [(qid, text) for (qid, _), text in zip(batch, noised)]


def apply_noise(dataset: dict, noised: Dict[str, str], meta: dict, keep_ids: Optional[set] = None) -> dict:
    out = {"version": dataset.get("version", "1.1"), "noise": meta, "data": []}
    for article in dataset["data"]:
        paragraphs = []
        for paragraph in article["paragraphs"]:
            qas = []
            for qa in paragraph["qas"]:
                if keep_ids is not None and qa["id"] not in keep_ids:
                    continue
                qa = dict(qa)
                qa["original_question"] = qa.get("original_question", qa["question"])
                qa["question"] = noised[qa["id"]]
                qas.append(qa)
            if qas:
                paragraphs.append(dict(paragraph, qas=qas))
        if paragraphs:
            out["data"].append(dict(article, paragraphs=paragraphs))
    return out


def finished_noise(output_path: str) -> Optional[dict]:
    """The `noise` record of the finished challenge set at `output_path`, or None when there is no
    file there or it is not a challenge set."""
    if not os.path.isfile(output_path):
        return None
    try:
        with open(output_path, encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return None
    noise = data.get("noise") if isinstance(data, dict) else None
    return noise if isinstance(noise, dict) and "key" in noise else None


def check_replacing(output_path: str, key: str, noise_params: dict, seed: int, force: bool) -> None:
    """An `InputError` when `output_path` is a finished challenge set made with another configuration
    (noise, seed, input or noise files), unless `force`."""
    finished = finished_noise(output_path)
    if finished is None or finished["key"] == key or force:
        return
    was = json.dumps(finished.get("config"), sort_keys=True)
    now = json.dumps(noise_params, sort_keys=True)
    differs = (f"noise {was} with seed {finished.get('seed')}, not {now} with seed {seed}"
               if (was, finished.get("seed")) != (now, seed) else "the same noise and seed, but another input or noise file")
    raise InputError(f"{output_path} is a finished challenge set made with another configuration ({differs}; key "
                     f"{finished['key']}, not {key}): give another output file, or --force to replace it")


def journal_path(output_path: str, shard: Tuple[int, int]) -> str:
    """The journal of shard `(i, n)` of the challenge set `output_path`."""
    return f"{output_path}.journal-{shard[0]}-of-{shard[1]}.jsonl"


@locks_journal(lambda call: journal_path(call.arguments["output_path"], call.arguments["shard"]))
def make_challenge_set(
    input_path: str,
    output_path: str,
    noise_params: dict,
    seed: int = 0,
    workers: int = 1,
    batch_size: Optional[int] = None,
    shard: Tuple[int, int] = (0, 1),
    progress: bool = True,
    force: bool = False,
) -> dict:
    """
    Noise every question of `input_path` into `output_path` (see the module docstring).

    # Parameters

    input_path : `str`
        A SQuAD-format file; a question's `original_question`, where it has one, is what is noised.
    output_path : `str`
    noise_params : `dict`
        Params of a registered `NoiseSource`.
    seed : `int`, optional (default = `0`)
    workers : `int`, optional (default = `1`)
        Processes that noise batches in parallel.
    batch_size : `int`, optional (default = the source's `batch_size`: 16, 256 for back_translation)
        Questions per call of the noise source. The noised questions do not depend on it.
    shard : `Tuple[int, int]`, optional (default = `(0, 1)`)
        `(i, n)`: noise every n-th question from the i-th.
    progress : `bool`, optional (default = `True`)
    force : `bool`, optional (default = `False`)
        Replace a finished challenge set at `output_path` made with another configuration; without
        it, such a file is an `InputError` and is left as it is.

    # Returns

    `dict`: `questions`, `noised_now`, `complete` (whether `output_path` was written) and `output`
    (the file written: `output_path`, or the shard's file while other shards are missing).
    """
    index, count = shard
    if not (count >= 1 and 0 <= index < count):
        raise ConfigurationError(f"shard must be i/n with 0 <= i < n, got {index}/{count}")
    # built here too, so that a bad config fails before any work
    source = NoiseSource.from_params(Params(copy.deepcopy(noise_params)))
    resolved = resolved_config(source)
    batch_size = batch_size or source.batch_size
    dataset = load_squad_json(input_path)
    input_sha256 = file_sha256(input_path)
    key = config_key(noise_params, seed, input_sha256)
    check_replacing(output_path, key, noise_params, seed, force)
    questions = collect_questions(dataset)
    ids = [qid for qid, _ in questions]
    if len(set(ids)) != len(ids):
        seen = set()
        twice = next(qid for qid in ids if qid in seen or seen.add(qid))
        raise DatasetError(input_path, "duplicate question id: it names more than one question", str(twice))
    mine = questions[index::count]
    done = read_journals(output_path, key)
    todo = [pair for pair in mine if pair[0] not in done]
    journal = journal_path(output_path, (index, count))
    batches = [(todo[k : k + batch_size], seed) for k in range(0, len(todo), batch_size)]
    header = {"key": key, "noise": noise_params, "seed": seed}
    bar = tqdm(total=len(mine), initial=len(mine) - len(todo), desc="noising", unit="q", disable=not progress)
    with JournalWriter(journal, header) as writer, worker_results(
        _noise_batch, batches, workers, ordered=True, initializer=_init_worker, initargs=(noise_params,)
    ) as results:
        try:
            for result in results:
                writer.append({"id": q, "noised": t} for q, t in result)
                done.update(result)
                bar.update(len(result))
        finally:
            bar.close()
    meta = {
        "config": noise_params, "resolved": resolved, "seed": seed, "input": os.path.basename(input_path),
        "input_path": os.path.abspath(input_path), "input_sha256": input_sha256, "files": named_files(noise_params),
        "key": key,
    }
    if count > 1:
        shard_ids = {qid for qid, _ in mine}
        shard_path = f"{output_path}.shard-{index}-of-{count}.json"
        write_json_atomic(shard_path, apply_noise(dataset, done, meta, shard_ids))
        missing = [qid for qid in ids if qid not in done]
        if missing:
            return {"questions": len(mine), "noised_now": len(todo), "complete": False, "output": shard_path}
    write_json_atomic(output_path, apply_noise(dataset, done, meta))
    for journal_file in glob.glob(glob.escape(output_path) + ".journal-*.jsonl"):
        os.remove(journal_file)
    return {"questions": len(questions), "noised_now": len(todo), "complete": True, "output": output_path}
