#!/usr/bin/env bash
# e2e_voices: the steps recipes/e2e_voices/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run e2e_voices "$@"
