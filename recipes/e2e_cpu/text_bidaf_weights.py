"""The starting point of the end-to-end model's context side and span head: the weights and the
vocabulary of a text BiDAF archive, unpacked into a folder, so that the end-to-end stages start
from a released model instead of a training of several hours on each new machine:

    python recipes/e2e_cpu/text_bidaf_weights.py bidaf-clean runs/e2e_cpu/text_bidaf --epoch 6

MODEL is a model card id (its archive found as `allennlp models path` finds it: the models
folder's copy, else the archive released in the repository; either way its sha256 must be the
card's, so that a copy installed from another training is refused) or an archive's path. The archive must hold the declared epoch: its training_record.json (the
`declared_checkpoint` callback's) says it archived the last epoch and that this epoch is `--epoch`,
the epoch the end-to-end protocol names. FOLDER receives weights.th, vocabulary/ and source.json
(the archive, its sha256 and its training record); it is written whole or not at all.
"""
import argparse
import json
import os
import shutil
import sys
import tarfile
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from srcframework.common.files import file_sha256  # noqa: E402


def archive_of(model: str) -> str:
    """The archive's path: `model` itself where it is a file, else its model card's archive, whose
    sha256 must be the one the card records."""
    if os.path.isfile(model):
        return model
    from srcframework.pretrained import archive_path, model_card

    path = archive_path(model)
    expected = model_card(model).model_usage.sha256
    if expected and file_sha256(path) != expected:
        raise SystemExit(f"{path}: not the archive the card {model!r} releases (its sha256 is not the card's "
                         f"{expected[:12]}...): remove that copy (allennlp models path {model}) or release it again")
    return path


def safe_member(name: str) -> bool:
    """A member name that stays inside the folder it is unpacked into."""
    return not os.path.isabs(name) and ".." not in Path(name).parts


def unpack(model: str, folder: str, epoch: int) -> dict:
    """Unpacks the weights and vocabulary of `model`'s archive into `folder`; returns source.json's content."""
    archive = archive_of(model)
    with tarfile.open(archive) as tar:
        names = set(tar.getnames())
        missing = [n for n in ("weights.th", "training_record.json", "vocabulary/tokens.txt") if n not in names]
        if missing:
            raise SystemExit(f"{archive}: no {missing[0]} in the archive; it must be a finished training's archive "
                             "with the declared_checkpoint callback's training record")
        try:
            record = json.load(tar.extractfile("training_record.json"))
        except json.JSONDecodeError as err:
            raise SystemExit(f"{archive}: its training_record.json is not JSON ({err})") from None
        if not isinstance(record, dict):
            raise SystemExit(f"{archive}: its training_record.json is not a JSON object")
        if record.get("checkpoint") != "last" or record.get("epoch") != epoch or record.get("epochs") != epoch:
            raise SystemExit(
                f"{archive}: it holds epoch {record.get('epoch')} of {record.get('epochs')} "
                f"(checkpoint {record.get('checkpoint')!r}); the end-to-end model starts from the last epoch, {epoch}"
            )
        target = Path(folder)
        target.parent.mkdir(parents=True, exist_ok=True)
        scratch = Path(tempfile.mkdtemp(prefix=target.name + ".", dir=target.parent))
        scratch.chmod(0o755)
        try:
            members = [m for m in tar.getmembers() if m.isfile() and safe_member(m.name)
                       and (m.name == "weights.th" or m.name.startswith("vocabulary/"))]
            for member in members:
                destination = scratch / member.name
                destination.parent.mkdir(parents=True, exist_ok=True)
                with tar.extractfile(member) as source, open(destination, "wb") as out:
                    shutil.copyfileobj(source, out)
            source = {"model": model, "archive": os.path.abspath(archive), "sha256": file_sha256(archive),
                      "training_record": record}
            (scratch / "source.json").write_text(json.dumps(source, indent=2) + "\n")
            if target.exists():
                shutil.rmtree(target)
            scratch.rename(target)
        finally:
            if scratch.exists():
                shutil.rmtree(scratch)
    return source


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a model card id (bidaf-clean) or an archive's path")
    parser.add_argument("folder", help="where weights.th and vocabulary/ go")
    parser.add_argument("--epoch", type=int, required=True, help="the last epoch, which the archive must hold")
    args = parser.parse_args()
    try:
        source = unpack(args.model, args.folder, args.epoch)
    except (OSError, ValueError, tarfile.TarError) as err:
        raise SystemExit(f"{args.model}: {err}") from None
    print(json.dumps({"folder": args.folder, "archive": source["archive"], "sha256": source["sha256"],
                      "epoch": args.epoch}))


if __name__ == "__main__":
    main()
