#!/usr/bin/env bash
# listening: the steps recipes/listening/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run listening "$@"
