"""Archive one epoch's checkpoint of a training run as a model archive of its own, e.g. to compare
models at the same number of updates (a run whose epochs are longer, such as one trained with
`keep_clean` noise, against its clean-trained twin):

    python scripts/archive_checkpoint.py runs/bidaf_cpu_scale_augmented --epoch 2 \
        --output runs/bidaf_cpu_scale_augmented_e2/model.tar.gz

AllenNLP keeps the last two epochs' weights (`model_state_e<N>_b0.th`) in the serialization
folder (more where the config's checkpointer says so); the archive holds that epoch's weights with
the run's config and vocabulary. For a `speecht5_ctc` pretraining run, `--encoder-folder` writes
that epoch's encoder folder instead of (or besides) an archive, as the `save_speecht5_ctc`
callback does at the end of a training, e.g. to start the end-to-end model from an epoch while the
pretraining goes on:

    python scripts/archive_checkpoint.py runs/speecht5_ctc --epoch 2 --encoder-folder runs/speecht5_ctc/speecht5_ctc_e2
"""
import argparse
import os
import sys
from pathlib import Path


def checkpoint_path(serialization_dir: str, epoch: int) -> str:
    """The weights file of the end of `epoch` (counting from 1) in a serialization folder."""
    path = Path(serialization_dir) / f"model_state_e{epoch}_b0.th"
    if not path.is_file():
        kept = sorted(p.name for p in Path(serialization_dir).glob("model_state_e*_b0.th"))
        raise SystemExit(f"{serialization_dir}: no checkpoint of epoch {epoch} (kept: {', '.join(kept) or 'none'})")
    return str(path)


def write_encoder_folder(serialization_dir: str, weights: str, folder: str) -> str:
    """The encoder folder (`save_encoder`) of a `speecht5_ctc` run with the given weights."""
    import srcframework  # noqa: F401  (registers the model)
    from allennlp.common import Params
    from allennlp.models import Model

    params = Params.from_file(str(Path(serialization_dir) / "config.json"))
    kind = params.get("model", {}).get("type")
    if kind != "speecht5_ctc":
        raise SystemExit(f"{serialization_dir}: the model is {kind!r}, not speecht5_ctc; --encoder-folder needs one")
    return Model.load(params, serialization_dir=serialization_dir, weights_file=weights).save_encoder(folder)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("serialization_dir")
    parser.add_argument("--epoch", type=int, required=True, help="epoch, counting from 1")
    parser.add_argument("--output", help="the model.tar.gz to write")
    parser.add_argument("--encoder-folder", help="for a speecht5_ctc run: the encoder folder to write")
    args = parser.parse_args(argv)
    if not (args.output or args.encoder_folder):
        parser.error("give --output, --encoder-folder or both")
    if not (Path(args.serialization_dir) / "config.json").is_file():
        raise SystemExit(f"{args.serialization_dir}: not a training run's folder (no config.json)")
    weights = checkpoint_path(args.serialization_dir, args.epoch)
    if args.encoder_folder:
        print(f"wrote {write_encoder_folder(args.serialization_dir, weights, args.encoder_folder)} from {weights}")
    if args.output:
        from allennlp.models.archival import archive_model

        os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
        archive_model(args.serialization_dir, weights=os.path.basename(weights), archive_path=args.output)
        print(f"wrote {args.output} from {weights}")


if __name__ == "__main__":
    sys.exit(main())
