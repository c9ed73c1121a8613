"""A recipe's training put back from its released archive instead of trained again (the recipe
runner, `srcframework.recipes.runner`, decides when; this module does it).

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

from srcframework import pretrained
from srcframework.common.files import file_sha256, write_json_atomic
from srcframework.common.training_runs import ARCHIVE_NAME, METRICS_NAME, config_difference


def released_archive(card_id: Optional[str], config: dict) -> Optional[str]:
    """The released archive of the card `card_id` (its sha256 checked) when its config is `config`;
    None when there is no card, the card has no archive in this clone, or the archive another config."""
    if not card_id:
        return None
    card = pretrained.model_card(card_id)
    if not pretrained.is_released(card) or not os.path.isfile(pretrained.released_file(card)):
        return None
    path = pretrained.checked_release(card)
    with tarfile.open(path, "r:*") as tar:
        saved = json.load(tar.extractfile("config.json"))
    return path if config_difference(config, saved) is None else None


def restore_from_release(folder: str, archive: str, card_id: Optional[str] = None) -> None:
    """Puts a training back into its serialization `folder` from the released `archive` of the card
    `card_id` (see the module): unpacked into a staging folder beside it, which becomes the folder
    once complete."""
    from srcframework.compat import safe_extract
    from srcframework.training.callback_outputs import write_callback_outputs

    os.makedirs(os.path.dirname(os.path.abspath(folder)), exist_ok=True)
    staging = tempfile.mkdtemp(prefix=".from-release-", dir=os.path.dirname(os.path.abspath(folder)))
    try:
        os.chmod(staging, 0o755)  # it becomes the run folder
        safe_extract(archive, staging)  # a released archive holds only what a model needs (release.KEPT)
        os.replace(os.path.join(staging, "weights.th"), os.path.join(staging, "best.th"))
        shutil.copyfile(archive, os.path.join(staging, ARCHIVE_NAME))
        write_callback_outputs(staging)
        record = {"restored_from": os.path.relpath(archive), "sha256": file_sha256(archive), "card": card_id}
        write_json_atomic(os.path.join(staging, METRICS_NAME), record, indent=1)
        if os.path.isdir(folder):
            shutil.rmtree(folder)
        os.replace(staging, folder)
    finally:
        if os.path.isdir(staging):
            shutil.rmtree(staging)
