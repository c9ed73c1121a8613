#!/usr/bin/env bash
# robust_training: the steps recipes/robust_training/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run robust_training "$@"
