#!/usr/bin/env bash
# cascade: the steps recipes/cascade/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run cascade "$@"
