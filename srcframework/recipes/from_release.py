"""A recipe's training put back from its released archive instead of trained again.

A training whose card is released in this clone (`models/ID.tar.gz`, its sha256 checked against
the card) comes back from that archive on a machine that has no run of it, when the archive's
`config.json` is the training's config now (the same model, data paths, seed and epochs; anything
else trains), unless `allennlp recipe run --train-released` asks to train it anyway. Its folder
then holds what the released archive holds (`config.json`, `meta.json`, `vocabulary/`,
`training_record.json`...), its weights as `best.th`, the archive itself as `model.tar.gz`, and
a `metrics.json` that names the archive it came from, so that the recipe counts it finished. What
the training's callbacks write at its end is written again from the archive's model by callbacks
that can (`outputs_from_archive`, e.g. `save_speecht5_ctc`'s encoder folder). The learning curve
(`metrics_epoch_*.json`) and the checkpoints stay with the machine that trained it.
"""
import json
import os
import shutil
import tarfile
import tempfile
from typing import Optional

from srcframework.common.files import file_sha256, write_json_atomic
from srcframework.common.training_runs import ARCHIVE_NAME, METRICS_NAME
from srcframework.recipes.recipe import Step

def released_archive(step: Step, config: dict) -> Optional[str]:
    """The released archive of `step`'s card (its sha256 checked) when its config is `config`; None
    when the step has no card, the card no archive in this clone, or the archive another config."""
    from srcframework import pretrained
    from srcframework.recipes.state import config_difference

    if not step.card:
        return None
    card = pretrained.model_card(step.card)
    if not pretrained.is_released(card) or not os.path.isfile(pretrained.released_file(card)):
        return None
    path = pretrained.checked_release(card)
    with tarfile.open(path, "r:*") as tar:
        saved = json.load(tar.extractfile("config.json"))
    return path if config_difference(config, saved) is None else None


def restore_from_release(step: Step, archive: str) -> None:
    """Puts the training `step` back into its folder from its released `archive` (see the module):
    unpacked into a staging folder beside it, which becomes the folder once complete."""
    from srcframework.compat import safe_extract
    from srcframework.training.callback_outputs import write_callback_outputs

    folder = step.folder
    os.makedirs(os.path.dirname(os.path.abspath(folder)), exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".from-release-", dir=os.path.dirname(os.path.abspath(folder)))
    try:
        os.chmod(staging, 0o755)  # it becomes the run folder
        safe_extract(archive, staging)  # a released archive holds only what a model needs (release.KEPT)
        os.replace(os.path.join(staging, "weights.th"), os.path.join(staging, "best.th"))
        shutil.copyfile(archive, os.path.join(staging, ARCHIVE_NAME))
        write_callback_outputs(staging)
        record = {"restored_from": os.path.relpath(archive), "sha256": file_sha256(archive), "card": step.card}
        write_json_atomic(os.path.join(staging, METRICS_NAME), record, indent=1)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.replace(staging, folder)
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)
