#!/usr/bin/env bash
# squad_src_paper: the steps recipes/squad_src_paper/recipe.jsonnet declares.
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run squad_src_paper "$@"
