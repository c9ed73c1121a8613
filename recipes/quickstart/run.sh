#!/usr/bin/env bash
# The quickstart (recipes/quickstart/README.md): a small BiDAF trained on the embedded data, named
# and loaded by its model card id, and compared on clean and keyboard-damaged questions; from a
# fresh clone after `make install`, in one command from the repository root:
#   bash recipes/quickstart/run.sh           # every step: train, study, report
#   bash recipes/quickstart/run.sh train     # training_configs/quickstart.jsonnet, installed as bidaf-quickstart
#   bash recipes/quickstart/run.sh study     # allennlp compare on the installed model
#   bash recipes/quickstart/run.sh report    # results.json and the README table from the study
#   bash recipes/quickstart/run.sh status    # what is done
# A step whose output is complete is skipped; a stopped training resumes from its last epoch.
# QUICKSTART_OUT (default runs/quickstart) holds the run and the study; TRAIN_OVERRIDES (an
# `allennlp train -o` JSON) changes the training, e.g. '{"trainer.num_epochs": 1}' for a smoke run
# (keys dotted: a "trainer" key would replace the whole trainer block).
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/quickstart
OUT=${QUICKSTART_OUT:-runs/quickstart}

step_train() {
  train training_configs/quickstart.jsonnet "$OUT"
  install_model bidaf-quickstart "$OUT/model.tar.gz"
}

step_study() {
  need "$(installed bidaf-quickstart)" "run the train step first"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers 1
}

step_status() {
  summary "$OUT/model.tar.gz" "$(installed bidaf-quickstart)" "$OUT/study/results.json" "$RECIPE/results.json"
}

case "${1:-all}" in
  train) step_train ;;
  study) step_study ;;
  report) report "$OUT/study/results.json" "$RECIPE" ;;
  status) step_status ;;
  all)
    step_train
    step_study
    report "$OUT/study/results.json" "$RECIPE"
    step_status
    ;;
  *) echo "usage: $0 [all|train|study|report|status]" >&2; exit 2 ;;
esac
