#!/usr/bin/env bash
# noiseqa_xquad: the steps recipes/noiseqa_xquad/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run noiseqa_xquad "$@"
