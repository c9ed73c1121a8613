"""Write the encoder folder of one epoch of a `speecht5_ctc` pretraining run (what the
`save_speecht5_ctc` callback writes at the end of a finished training), e.g. to start the
end-to-end model or the `speecht5_ctc` recognizer from an epoch while the pretraining goes on:

    python scripts/export_speecht5_ctc.py runs/speecht5_ctc --epoch 2 --output runs/speecht5_ctc/speecht5_ctc_e2

The folder holds config.json + model.safetensors (`save_pretrained`), the CTC layer and the
character vocabulary; `{type: 'speecht5', model_name: FOLDER}` and the recognizer load it.
"""
import argparse
import sys
from pathlib import Path


def export(serialization_dir: str, epoch: int, output: str) -> str:
    import srcframework  # noqa: F401  (registers the model)
    from allennlp.common import Params
    from allennlp.models import Model

    run = Path(serialization_dir)
    if not (run / "config.json").is_file():
        raise SystemExit(f"{serialization_dir}: not a training run's folder (no config.json)")
    weights = run / f"model_state_e{epoch}_b0.th"
    if not weights.is_file():
        kept = sorted(p.name for p in run.glob("model_state_e*_b0.th"))
        raise SystemExit(f"{serialization_dir}: no checkpoint of epoch {epoch} (kept: {', '.join(kept) or 'none'})")
    params = Params.from_file(str(run / "config.json"))
    if params.get("model", {}).get("type") != "speecht5_ctc":
        raise SystemExit(f"{serialization_dir}: the model is {params.get('model', {}).get('type')!r}, not speecht5_ctc")
    model = Model.load(params, serialization_dir=str(run), weights_file=str(weights))
    return model.save_encoder(output)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("serialization_dir")
    parser.add_argument("--epoch", type=int, required=True, help="epoch, counting from 1")
    parser.add_argument("--output", required=True, help="the encoder folder to write")
    args = parser.parse_args(argv)
    print(f"wrote {export(args.serialization_dir, args.epoch, args.output)}")


if __name__ == "__main__":
    sys.exit(main())
