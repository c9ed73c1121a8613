"""
The models that the recipes make, by card id: `load_predictor("bidaf-quickstart")`.

Each model has a card, `srcframework/modelcards/ID.json` (shipped with the package): AllenNLP's `ModelCard` as JSON (what the model is,
its intended use, training data, metrics and caveats), whose `model_usage` says, beside
AllenNLP's `archive_file` (here the URL of a hosted copy, when there is one) and
`training_config` (a path in this repository), what makes the archive here: the `recipe`, the
`command`, the `output` path it writes, the `declared_checkpoint`, the `time_here` it takes, and
the `results` file its metrics are filled from (`allennlp models metrics ID`).

An archive is found, in order:

1. for a released model (its card records the archive's `sha256`), in this clone as the card's
   `archive_file` (`models/ID.tar.gz`, relative to the folder above the cards folder);
2. in the models folder, as `ID.tar.gz`: `$SRCFRAMEWORK_MODELS`, by default
   `~/.cache/srcframework/models` (`$XDG_CACHE_HOME/srcframework/models` where that is set). The
   recipes, or `allennlp models install ID`, copy what they train there;
3. at the card's `archive_file`: a path in the repository (the archives released with the code),
   or a URL, through AllenNLP's `cached_path` (downloaded once, then cached);
4. for a released model whose archive is in neither (a pip-installed package, a clone without
   it), fetched by name from the card's `download` (a file name under `$SRCFRAMEWORK_MODELS_URL`,
   by default `store.download.DEFAULT_MODELS_URL`, or a whole URL) into the models folder: whole
   and with the card's sha256, or not at all (`store.download.fetch`). `allennlp models install
   ID` fetches it the same way.

Whatever is found is read to its end before it is used (`common.archive_check`: a damaged,
truncated or git-LFS pointer file is one line), and for a released model its sha256 must be the
card's wherever it was found (the clone, the models folder, a download): a copy that differs is
one line naming the file and both hashes, never loaded.

Otherwise `ModelArchiveNotFound` says, in one line, which command makes it. `SRCFRAMEWORK_MODELCARDS`
names another cards folder.
"""
import inspect
import json
import logging
import os
import shutil
from pathlib import Path
from typing import Dict, Optional, Tuple

from allennlp.common import Params
from allennlp.common.file_utils import cached_path
from allennlp.common.model_card import ModelCard, ModelUsage

from srcframework import compat
from srcframework.common.archive_check import ArchiveError, check_archive
from srcframework.common.errors import InputError, InputFileNotFound
from srcframework.common.files import atomic_output, file_sha256, read_json
from srcframework.common.logs import params_not_logged
from srcframework.store import paths
from srcframework.store.download import MODELS_URL_ENV, DownloadError, download_url, fetch
from srcframework.store.paths import MODELS_ENV

logger = logging.getLogger(__name__)

CARDS_ENV = "SRCFRAMEWORK_MODELCARDS"
CARDS_FOLDER = str(Path(__file__).resolve().parent / "modelcards")
_warned_deprecated = set()
ARCHIVE_SUFFIX = ".tar.gz"


class ModelArchiveNotFound(InputFileNotFound):
    """A card's archive is in neither the models folder nor at a hosted URL."""


class RecipeUsage(ModelUsage):
    """
    A card's `model_usage`: AllenNLP's fields, kept as written (AllenNLP's own class makes any path
    a URL of its model storage), and what makes the archive in this repository.

    # Parameters

    archive_file : `str`, optional
        The URL (or path) of a hosted copy of the archive, fetched with `cached_path`.
    training_config : `str`, optional
        The config that trains the model, a path in this repository.
    install_instructions : `str`, optional
    overrides : `Dict`, optional
        Overrides applied when the archive is loaded.
    recipe : `str`, optional
        The recipe (a folder of `recipes/`, or the Makefile target) that makes the model.
    command : `str`, optional
        The command that makes the archive (and installs it in the models folder), from the
        repository root.
    output : `str`, optional
        Where that command writes the archive, from the repository root.
    declared_checkpoint : `str`, optional
        Which weights the archive holds, fixed before training.
    time_here : `str`, optional
        How long the command takes on this project's machine.
    sha256 : `str`, optional
        The sha256 of a released archive (`archive_file` a path in the repository): checked before it is loaded.
    size : `int`, optional
        Its size in bytes.
    float16 : `bool`, optional
        True when its weights are stored in half precision (`allennlp models release --float16`).
    download : `str`, optional
        Where a released archive is fetched by name when it is neither in the clone nor in the
        models folder: a file name under `$SRCFRAMEWORK_MODELS_URL` (the release's `models/`
        served over HTTP), or a whole URL; what is fetched must have `sha256`.
    results : `str`, optional
        The results file (a study's `results.json`, or `allennlp evaluate` metrics) that
        `allennlp models metrics` fills the card's figures from and `allennlp models table` reads:
        a path in the repository (relative to the folder above the cards folder), normally the
        recipe's committed `recipes/NAME/results.json`.
    """

    def __init__(
        self,
        archive_file: Optional[str] = None,
        training_config: Optional[str] = None,
        install_instructions: Optional[str] = None,
        overrides: Optional[Dict] = None,
        recipe: Optional[str] = None,
        command: Optional[str] = None,
        output: Optional[str] = None,
        declared_checkpoint: Optional[str] = None,
        time_here: Optional[str] = None,
        results: Optional[str] = None,
        sha256: Optional[str] = None,
        size: Optional[int] = None,
        float16: Optional[bool] = None,
        download: Optional[str] = None,
    ) -> None:
        self.archive_file = archive_file
        self.training_config = training_config
        self.install_instructions = install_instructions
        self.overrides = overrides
        self.recipe = recipe
        self.command = command
        self.output = output
        self.declared_checkpoint = declared_checkpoint
        self.time_here = time_here
        self.results = results
        self.sha256 = sha256
        self.size = size
        self.float16 = float16
        self.download = download


def cards_folder() -> str:
    """The folder of model cards: `$SRCFRAMEWORK_MODELCARDS`, or the package's `srcframework/modelcards/`."""
    return os.path.abspath(os.environ.get(CARDS_ENV) or CARDS_FOLDER)


def repository_root() -> str:
    """The folder a card's relative paths start from: the clone's root for the packaged cards, else the
    folder above the cards folder (`$SRCFRAMEWORK_MODELCARDS`)."""
    folder = cards_folder()
    return paths.PROJECT_ROOT if folder == os.path.abspath(CARDS_FOLDER) else os.path.dirname(folder)


def deprecated_ids() -> Dict[str, str]:
    """`{old id: current id}` from the cards' `deprecated_ids` lists (ids a card was renamed from)."""
    folder = cards_folder()
    if not os.path.isdir(folder):
        return {}
    aliases = {}
    for name in sorted(os.listdir(folder)):
        if name.endswith(".json"):
            data = read_json(os.path.join(folder, name))
            for old in (data.get("deprecated_ids") or []) if isinstance(data, dict) else []:
                aliases[old] = name[: -len(".json")]
    return aliases


def current_id(model_id: str) -> str:
    """`model_id`, or the id its card now has when it is a deprecated one (said once per process, as a warning)."""
    path = os.path.join(cards_folder(), f"{model_id}.json") if isinstance(model_id, str) else ""
    if not isinstance(model_id, str) or os.path.isfile(path):
        return model_id
    new = deprecated_ids().get(model_id)
    if new is None:
        return model_id
    if model_id not in _warned_deprecated:
        _warned_deprecated.add(model_id)
        logger.warning("model id %r is deprecated: it is now %r (the old id still loads)", model_id, new)
    return new


def card_file(model_id: str) -> str:
    """The card file of `model_id` (a deprecated id finds its renamed card); an unknown id is an
    `InputError` listing the known ones."""
    model_id = current_id(model_id)
    path = os.path.join(cards_folder(), f"{model_id}.json")
    if not isinstance(model_id, str) or os.sep in model_id or not os.path.isfile(path):
        known = ", ".join(sorted(model_cards())) or "none"
        raise InputError(f"no model card {model_id!r} in {cards_folder()}; cards: {known}")
    return path


def read_card(path: str) -> ModelCard:
    """The `ModelCard` of a card file, its `model_usage` a `RecipeUsage`; its `id` must be its file name."""
    data = read_json(path)
    if not isinstance(data, dict):
        raise InputError(f"{path}: a model card is a JSON object")
    expected = os.path.basename(path)[: -len(".json")]
    if data.get("id") != expected:
        raise InputError(f"{path}: its id is {data.get('id')!r}, not its file name {expected!r}")
    data.pop("deprecated_ids", None)  # ids the card had before a rename (`current_id`)
    usage = data.pop("model_usage", None) or {}
    unknown = sorted(set(usage) - set(inspect.signature(RecipeUsage.__init__).parameters) - {"self"})
    if unknown:
        raise InputError(f"{path}: model_usage has no field {unknown[0]!r}")
    try:
        with params_not_logged():  # a card is read, not configured: its fields are not log lines
            return ModelCard.from_params(Params(data), model_usage=RecipeUsage(**usage))
    except Exception as err:  # AllenNLP's ConfigurationError names an unknown or ill-typed key
        raise InputError(f"{path}: {' '.join(str(err).split())}") from None


def model_cards() -> Dict[str, ModelCard]:
    """`{id: ModelCard}` of every card, sorted by id."""
    folder = cards_folder()
    if not os.path.isdir(folder):
        return {}
    names = sorted(name for name in os.listdir(folder) if name.endswith(".json"))
    return {name[: -len(".json")]: read_card(os.path.join(folder, name)) for name in names}


def model_card(model_id: str) -> ModelCard:
    return read_card(card_file(model_id))


def installed_path(model_id: str) -> str:
    """Where the models folder keeps `model_id`'s archive (whether or not it is there)."""
    return os.path.join(paths.installed_dir(), f"{model_id}{ARCHIVE_SUFFIX}")


def making(card: ModelCard) -> str:
    """`` `COMMAND` (TIME) `` or what stands in for it: how the card's archive is made here."""
    usage = card.model_usage
    if not usage.command:
        return "no command makes it here"
    return f"`{usage.command}`" + (f" ({usage.time_here})" if usage.time_here else "")


def repository_file(where: Optional[str]) -> Optional[str]:
    """A path a card names: a URL or an absolute path as it is, a relative path (in the
    repository: `models/ID.tar.gz`, `recipes/X/results.json`) from `repository_root()`; None for None."""
    if not where or "://" in where or os.path.isabs(where):
        return where
    return os.path.join(repository_root(), where)


def released_file(card: ModelCard) -> Optional[str]:
    """The card's `archive_file` as `cached_path` takes it (`repository_file`); None without one."""
    return repository_file(card.model_usage.archive_file)


def is_released(card: ModelCard) -> bool:
    """True when the card's `archive_file` is a path in the repository (`models/ID.tar.gz`), not a URL."""
    where = card.model_usage.archive_file
    return bool(where) and "://" not in where and not os.path.isabs(where)


_checked: Dict[Tuple[str, float, int], str] = {}


def verified_copy(card: ModelCard, path: str, fix: str, fetch: str = "") -> str:
    """`path` once it is known to be what `card` claims. For a card that records a sha256, the file's
    sha256 must be the card's (checked once per file state): a mismatch is a `ModelArchiveNotFound`
    line naming the file, both hashes, what is wrong with the file where the whole-file check
    (`check_archive`) finds something, and `fix`; a git-LFS pointer file in its place is an
    `ArchiveError` saying how to fetch the archive (`fetch`). Without a sha256 the file is read to
    its end (`check_archive`)."""
    expected = card.model_usage.sha256
    if not expected:
        check_archive(path, fetch=fetch)
        return path
    stat = os.stat(path)
    key = (os.path.realpath(path), stat.st_mtime, stat.st_size)
    if _checked.get(key) == expected:
        return path
    actual = file_sha256(path)
    if actual != expected:
        try:
            check_archive(path, fetch=fetch)
            what = ""
        except ArchiveError as err:
            if err.pointer:
                raise
            message = str(err)
            what = f"; it {message[len(path) + 1:] if message.startswith(path + ' ') else message}"
        raise ModelArchiveNotFound(
            f"model {card.id!r}: {path} does not match the sha256 its card records "
            f"({actual[:12]}... against {expected[:12]}...{what}): {fix}"
        )
    _checked[key] = expected
    return path


def checked_release(card: ModelCard, fetch_missing: bool = True) -> str:
    """The released archive's path after it is read whole and its sha256 is checked against the card
    (`verified_copy`); a missing or changed file is a `ModelArchiveNotFound` saying how to get it.
    A missing one is first fetched by name into the models folder where the card has a `download`
    (and `fetch_missing`), and that copy's path returned."""
    path = released_file(card)
    if not os.path.isfile(path):
        fetched, why = fetched_release(card) if fetch_missing else (None, "")
        if fetched:
            return fetched
        if not os.path.isdir(paths.models_dir(repository_root())):  # an installed package, not a clone
            raise ModelArchiveNotFound(
                f"model {card.id!r} is released in the srcframework repository as {card.model_usage.archive_file}, "
                f"which is not beside this installation ({repository_root()}){why}: clone the repository and use it "
                f"from the clone, or `allennlp models install {card.id} --archive CLONE/{card.model_usage.archive_file}`"
            )
        raise ModelArchiveNotFound(
            f"model {card.id!r}: its released archive {path} is missing from this clone{why} "
            f"(`git checkout -- {card.model_usage.archive_file}` restores it); or it is made by {making(card)}"
        )
    where = card.model_usage.archive_file
    return verified_copy(card, path, fix=f"`git checkout -- {where}`, or release it again (allennlp models release {card.id})",
                         fetch=f"run `git lfs pull` in {repository_root()} to fetch it (git-lfs installed)")


def fetch_release(card: ModelCard) -> str:
    """Fetches a released model's archive by name (the card's `download`) into the models folder,
    whole and with the card's sha256 (`store.download.fetch`), and returns its path; a card with no
    `download` or no `sha256`, or a fetch that fails, is a one-line `InputError`."""
    usage = card.model_usage
    if not usage.download or not usage.sha256:
        raise InputError(f"model {card.id!r}: its card names no download (and sha256) to fetch it by name")
    return fetch(download_url(usage.download), installed_path(card.id), usage.sha256, size=usage.size)


def fetched_release(card: ModelCard) -> Tuple[Optional[str], str]:
    """`(path, "")` once a released model's archive is fetched by name into the models folder;
    `(None, why)` where the card has no `download` (why is "") or the fetch failed (why says what
    went wrong, for the caller's line)."""
    if not (card.model_usage.download and card.model_usage.sha256):
        return None, ""
    try:
        return fetch_release(card), ""
    except DownloadError as err:
        return None, f", and fetching it by name failed ({err}; ${MODELS_URL_ENV} names the server)"


def checked_install(card: ModelCard) -> str:
    """The models folder's copy of a released model, read whole and its sha256 checked against the card."""
    where = card.model_usage.archive_file
    install = f"`allennlp models install {card.id} --archive CLONE/{where}`" if is_released(card) else f"its release ({where})"
    return verified_copy(
        card, installed_path(card.id),
        fix=(f"it is not the released model (a training of your own, or a damaged copy): remove it and put {install} "
             "there, or load your own model by its path (allennlp evaluate ARCHIVE, load_archive(ARCHIVE))"),
        fetch=f"remove it and put {install} there",
    )


def released_first(card: ModelCard) -> bool:
    """True for a card that records its archive's sha256 and whose released archive is in this clone:
    that archive is the one its id loads, before any copy in the models folder."""
    return bool(card.model_usage.sha256) and is_released(card) and os.path.isfile(released_file(card))


def archive_status(card: ModelCard) -> Tuple[str, str]:
    """
    `(state, where)`: `installed` (the models folder's path), `released` (an archive in the
    repository that the card names, with its sha256), `built` (the recipe's output exists but is
    neither installed nor released), `hosted` (the card's URL or absolute path; whether it is
    downloaded yet is the cache's business), `to fetch` (a released archive that is not in this
    clone or installation, fetched by name on first use: its URL), `missing` (one with no
    `download`) or `to train` (the command that makes it, and its time).
    """
    usage = card.model_usage
    if released_first(card):
        return "released", released_file(card)
    if os.path.isfile(installed_path(card.id)):
        return "installed", installed_path(card.id)
    if is_released(card):
        where = released_file(card)
        if os.path.isfile(where):
            return "released", where
        if usage.download and usage.sha256:
            return "to fetch", download_url(usage.download)
        return "missing", f"{where} is not there; {making(card)}"
    if usage.output and os.path.isfile(usage.output):
        return "built", usage.output
    if usage.archive_file:
        return "hosted", usage.archive_file
    return "to train", making(card)


def archive_path(model_id: str) -> str:
    """
    The local path of `model_id`'s archive, searched in this order:

    1. for a card that records a sha256 (a released model), the archive released in this clone
       (`models/ID.tar.gz`);
    2. the models folder's copy (`installed_path`);
    3. the archive released in the repository, else the hosted one fetched through `cached_path`;
    4. for a released model whose archive is not in the repository here, its card's `download`,
       fetched by name into the models folder (`fetch_release`);

    else `ModelArchiveNotFound` naming the command that makes it (and why a fetch failed). Whatever is found is read to its
    end first (`check_archive`), and for a card that records a sha256 it must match it, wherever
    it was found (`verified_copy`): a released id loads only its release.
    """
    card = model_card(model_id)
    installed = installed_path(card.id)
    if released_first(card):
        return checked_release(card)
    if os.path.isfile(installed):
        if card.model_usage.sha256:
            return checked_install(card)
        check_archive(installed)
        return installed
    if is_released(card):
        return checked_release(card)
    hosted = released_file(card)
    if hosted:
        try:
            fetched = cached_path(hosted)
        except Exception as err:  # a download's or a missing file's error, whatever its kind, in one line
            message = " ".join(str(err).split())
            raise ModelArchiveNotFound(
                f"model {card.id!r}: its hosted copy {hosted} cannot be fetched: {message}"
            ) from None
        return verified_copy(card, fetched, fix=f"the copy fetched from {hosted} is not the released archive: "
                                                "remove it from the download cache and fetch it again")
    output = card.model_usage.output
    if output and os.path.isfile(output):
        fix = f"{output} is built: `allennlp models install {card.id}` copies it there"
    else:
        fix = f"it is made by {making(card)}" + (f", which writes {output}" if output else "")
    raise ModelArchiveNotFound(
        f"model {card.id!r} has no archive in the models folder ({installed}; ${MODELS_ENV}) and no hosted copy: {fix}"
    )


def load_archive(model_id: str, cuda_device: int = -1, overrides=None):
    """AllenNLP's `load_archive` of `model_id`'s archive (`archive_path`), with the card's overrides
    under `overrides`."""
    from allennlp.models.archival import load_archive as load

    compat.apply()  # safe extraction of the archive

    card = model_card(model_id)
    merged = dict(card.model_usage.overrides or {})
    merged.update(json.loads(overrides) if isinstance(overrides, str) and overrides else overrides or {})
    return load(archive_path(model_id), cuda_device=cuda_device, overrides=merged or "")


def load_predictor(model_id: str, predictor_name: Optional[str] = None, cuda_device: int = -1, overrides=None,
                   **predictor_args):
    """A `Predictor` of `model_id`: `predictor_name`, else the card's `registered_predictor_name`."""
    from allennlp.predictors import Predictor

    name = predictor_name or model_card(model_id).registered_predictor_name
    if not name:
        raise InputError(f"model {model_id!r} names no predictor: give predictor_name, or use load_archive")
    archive = load_archive(model_id, cuda_device=cuda_device, overrides=overrides)
    return Predictor.from_archive(archive, name, extra_args=predictor_args or None)


def finished_training(archive: str) -> None:
    """An `InputError` when `archive` sits in a serialization folder whose training did not finish
    (AllenNLP archives the best epoch so far when a training is stopped; only a finished run writes
    metrics.json)."""
    run = os.path.dirname(os.path.abspath(archive))
    if os.path.isfile(os.path.join(run, "config.json")) and not os.path.isfile(os.path.join(run, "metrics.json")):
        raise InputError(f"{archive} is a stopped training's best epoch so far (no metrics.json beside it): "
                         "finish the training (allennlp train CONFIG -s RUN --recover) first")


def declared_by(archive: str) -> str:
    """The id of the card whose `output` is `archive` (the same file); none is an `InputError`."""
    target = os.path.realpath(archive)
    for model_id, card in model_cards().items():
        if card.model_usage.output and os.path.realpath(card.model_usage.output) == target:
            return model_id
    raise InputError(f"no model card in {cards_folder()} declares {archive} as its output")


def install(model_id: Optional[str] = None, archive: Optional[str] = None) -> str:
    """
    Copies an archive into the models folder as `ID.tar.gz` (atomically) and returns that path.
    `archive` defaults to the card's `output`; without `model_id`, the card whose `output` is
    `archive` is the one. A released model (its card has a `download` and a `sha256`) given with
    no archive, whose recipe output is not built, is copied from the clone's release where it is
    here and fetched by name otherwise (`fetch_release`), unless the models folder already holds
    it with the card's sha256.
    """
    if model_id is None:
        if archive is None:
            raise InputError("say which model to install: an id, or the archive a card declares as its output")
        model_id = declared_by(archive)
    card = model_card(model_id)
    model_id = card.id
    usage = card.model_usage
    if archive is None and usage.download and usage.sha256 and not (usage.output and os.path.isfile(usage.output)):
        target = installed_path(model_id)
        if os.path.isfile(target) and file_sha256(target) == usage.sha256:
            return target
        if not released_first(card):
            return fetch_release(card)
        archive = checked_release(card)  # in a clone: its release, checked, is what a fetch would give
    source = archive or card.model_usage.output
    if not source:
        raise InputError(f"model {model_id!r}: its card declares no output; give the archive to install")
    if not os.path.isfile(source):
        raise InputFileNotFound(f"model {model_id!r}: no archive at {source}; it is made by {making(card)}")
    finished_training(source)
    target = installed_path(model_id)
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(source, "rb") as reader, atomic_output(target, "wb") as writer:
        shutil.copyfileobj(reader, writer, 1 << 20)
    return target
