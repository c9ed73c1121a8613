"""EM/F1 of a config's model before any training (random weights, the vocabulary of the training
data): the floor a trained model should rise above.

    .venv/bin/python scripts/evaluate_untrained.py training_configs/quickstart.jsonnet srcframework/data/default/dev.json
"""
import argparse
import json

import torch
from allennlp.common import Params
from allennlp.common.util import prepare_environment
from allennlp.data import DatasetReader, Vocabulary
from allennlp.data.data_loaders import SimpleDataLoader
from allennlp.models import Model
from allennlp.training.util import evaluate

import srcframework  # noqa: F401


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("config")
    parser.add_argument("data_file")
    parser.add_argument("--output", help="also write the EM/F1 here (JSON)")
    args = parser.parse_args()
    params = Params.from_file(args.config)
    prepare_environment(params)
    reader = DatasetReader.from_params(params.pop("dataset_reader"))
    train = list(reader.read(params.pop("train_data_path")))
    vocab = Vocabulary.from_instances(train)
    model = Model.from_params(vocab=vocab, params=params.pop("model"))
    loader = SimpleDataLoader(list(reader.read(args.data_file)), batch_size=32, vocab=vocab)
    with torch.no_grad():
        metrics = evaluate(model, loader)
    found = json.dumps({"em": metrics["em"], "f1": metrics["f1"]})
    print(found)
    if args.output:
        with open(args.output, "w", encoding="utf-8") as handle:
            handle.write(found + "\n")


if __name__ == "__main__":
    main()
