"""Archive one epoch's checkpoint of a training run as a model archive of its own, e.g. to compare
models at the same number of updates (a run whose epochs are longer, such as one trained with
`keep_clean` noise, against its clean-trained twin):

    python scripts/archive_checkpoint.py runs/bidaf_cpu_scale_augmented --epoch 2 \
        --output runs/bidaf_cpu_scale_augmented_e2/model.tar.gz

AllenNLP keeps the last two epochs' weights (`model_state_e<N>_b0.th`) in the serialization
folder; the archive holds that epoch's weights with the run's config and vocabulary.
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


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("serialization_dir")
    parser.add_argument("--epoch", type=int, required=True, help="epoch, counting from 1")
    parser.add_argument("--output", required=True, help="the model.tar.gz to write")
    args = parser.parse_args(argv)
    if not (Path(args.serialization_dir) / "config.json").is_file():
        raise SystemExit(f"{args.serialization_dir}: not a training run's folder (no config.json)")
    weights = checkpoint_path(args.serialization_dir, args.epoch)
    from allennlp.models.archival import archive_model

    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    archive_model(args.serialization_dir, weights=os.path.basename(weights), archive_path=args.output)
    print(f"wrote {args.output} from {weights}")


if __name__ == "__main__":
    sys.exit(main())
