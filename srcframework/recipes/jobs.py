"""The registered jobs a recipe step can run besides a command line (`job: {type: ..., ...}`).

- `compare`: `allennlp compare STUDY -o OUTPUT` in this process;
- `transcribe`: `allennlp transcribe FOLDER OUTPUT --recognizer ...` in this process, the
  recognizer's `decoder` optionally read from a decoder-tuning result (`allennlp tune-ctc-decoder`);
- `release`: a slim copy of a card's finished training in the repository's models/ (`allennlp
  models release`), the card's sha256 and size filled in;
- `report`: a study's results.json copied into the recipe with the study's per-question record
  beside it (`pairs.tar.xz`: its pairs' predictions and scores and what the analysis read besides
  them, `srcframework/studies/records.py`; packed deterministically, its size printed), its
  README's tables filled (and every results block of the `pages` named, a results page), then the
  model cards' figures and README's models table (what `allennlp models metrics --all` and
  `allennlp models table --into README.md` do).
"""
import logging
import shutil
from typing import Any, Dict, List, Optional

from allennlp.common import Registrable

from srcframework.common.errors import InputError, InputFileNotFound

logger = logging.getLogger(__name__)


class RecipeJob(Registrable):
    """A job a recipe step runs in this process; its params come from the step's `job` object."""

    def run(self) -> None:
        raise NotImplementedError


@RecipeJob.register("compare")
class CompareJob(RecipeJob):
    """
    # Parameters

    study : `str`
        The study file.
    output : `str`
        Its output folder (results.json goes there).
    workers : `int`, optional (default = `1`)
    cuda_device : `int`, optional
    runs : `str`, optional
        The recipe's runs folder, given to a study that is a function of `runs` (its default
        otherwise), so that the study reads the archives and sets where the recipe wrote them.
    """

    def __init__(self, study: str, output: str, workers: int = 1, cuda_device: Optional[int] = None,
                 runs: Optional[str] = None) -> None:
        self.study, self.output, self.workers, self.cuda_device, self.runs = study, output, workers, cuda_device, runs

    def run(self) -> None:
        from srcframework.common.paths import check_output_path
        from srcframework.studies.runner import run_study
        from srcframework.studies.study import load_study

        check_output_path(self.output, "recipe study output", is_dir=True)
        run_study(load_study(self.study, runs=self.runs), self.output, workers=self.workers, cuda_device=self.cuda_device, progress=False)


@RecipeJob.register("transcribe")
class TranscribeJob(RecipeJob):
    """
    # Parameters

    folder : `str`
        A spoken folder (fid2qid_SPLIT.csv and its recordings).
    output : `str`
        The transcripts file.
    recognizer : `Dict[str, Any]`
        The recognizer's config, as `--recognizer` takes it.
    decoder_from : `str`, optional
        A JSON file whose `decoder` becomes the recognizer's `decoder` (what `tune-ctc-decoder` chose).
    split : `str`, optional (default = `"dev"`)
    squad : `str`, optional
        The SQuAD file of the questions (default: the folder's own squad.json).
    workers : `int`, optional (default = `1`)
    """

    def __init__(self, folder: str, output: str, recognizer: Dict[str, Any], decoder_from: Optional[str] = None,
                 split: str = "dev", squad: Optional[str] = None, workers: int = 1) -> None:
        self.folder, self.output, self.recognizer, self.decoder_from = folder, output, dict(recognizer), decoder_from
        self.split, self.squad, self.workers = split, squad, workers

    def run(self) -> None:

        from srcframework.common.files import read_json
        from srcframework.data.squad_src_layout import SquadSrcFolder
        from srcframework.jobs.transcription import TranscriptionSettings, transcribe

        recognizer = dict(self.recognizer)
        if self.decoder_from:
            recognizer["decoder"] = read_json(self.decoder_from, f"missing {self.decoder_from}: run the decoder tuning first")["decoder"]
        folder = SquadSrcFolder(self.folder, split=self.split, squad_file=self.squad)
        transcribe(folder, self.output, TranscriptionSettings(recognizer, self.workers, progress=False))


@RecipeJob.register("release")
class ReleaseJob(RecipeJob):
    """
    # Parameters

    card : `str`
        The model card id.
    archive : `str`, optional
        The finished training's archive (default: the card's `output`).
    float16 : `bool`, optional (default = `False`)
        Weights in half precision (for an archive over the size limit).
    """

    def __init__(self, card: str, archive: Optional[str] = None, float16: bool = False) -> None:
        self.card, self.archive, self.float16 = card, archive, float16

    def run(self) -> None:
        from srcframework.store.release import release

        done = release(self.card, self.archive, float16=self.float16)
        logger.info("released %s: %s", self.card, done)


@RecipeJob.register("report")
class ReportJob(RecipeJob):
    """
    # Parameters

    results : `str`
        The study's results.json, in the study's output folder (its `pairs/` beside it).
    recipe : `str`
        The recipe folder: results.json is copied there, the study's record is packed there as
        `pairs.tar.xz` (`allennlp compare STUDY --reanalyse` reads it), and its README.md's results
        blocks are filled.
    cards : `bool`, optional (default = `True`)
        Also fill the model cards' figures and README.md's models table.
    pages : `List[str]`, optional (default = `[]`)
        Other Markdown files (a results page) whose every results block is filled from the same
        results.json.
    """

    def __init__(self, results: str, recipe: str, cards: bool = True, pages: Optional[List[str]] = None) -> None:
        self.results, self.recipe, self.cards, self.pages = results, recipe, cards, list(pages or [])

    def run(self) -> None:
        import os

        from srcframework.common.files import write_bytes_atomic
        from srcframework.pretrained import model_cards
        from srcframework.reports.model_cards import fill_all_metrics, table_into
        from srcframework.studies.markdown_into import block_names, markdown_into
        from srcframework.studies.records import RECORDS_NAME, record_bytes

        if not os.path.isfile(self.results):
            raise InputFileNotFound(f"missing {self.results}: run the study step first")
        pages = {page: block_names(page) for page in self.pages}  # every page checked before anything is written
        for page, names in pages.items():
            if not names:
                raise InputError(f"{page}: no <!-- results:NAME --> block to fill")
        record = record_bytes(os.path.dirname(os.path.abspath(self.results)))  # a missing pair fails before any write
        target = os.path.join(self.recipe, "results.json")
        shutil.copyfile(self.results, target)
        record_path = os.path.join(self.recipe, RECORDS_NAME)
        write_bytes_atomic(record_path, record)
        print(f"per-question record: {record_path} ({len(record) / 1e6:.1f} MB)")
        markdown_into(target, os.path.join(self.recipe, "README.md"))
        for page, names in pages.items():
            for name in names:
                markdown_into(target, page, name)
        if self.cards:
            fill_all_metrics()
            table_into("README.md", model_cards())
        logger.info("results: %s and the tables it fills (commit them)", target)
