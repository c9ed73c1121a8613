#!/usr/bin/env bash
# The quickstart, as recipe.jsonnet here declares it: allennlp recipe run quickstart [STEP ...] [--dry-run]
cd "$(dirname "$0")/../.." && exec .venv/bin/allennlp recipe run quickstart "$@"
