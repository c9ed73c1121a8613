#!/usr/bin/env bash
# The NoiseQA study on XQuAD-en (recipes/noiseqa_xquad/README.md), from a fresh clone after
# `make install`, in one command from the repository root:
#   bash recipes/noiseqa_xquad/run.sh           # every step: train, study, report
#   bash recipes/noiseqa_xquad/run.sh train     # the CPU-scale BiDAF (WITH_MINILM=1: and MiniLM QA), installed
#   bash recipes/noiseqa_xquad/run.sh study     # allennlp compare on the archives
#   bash recipes/noiseqa_xquad/run.sh report    # results.json and the README table from the study
#   bash recipes/noiseqa_xquad/run.sh status    # what is done
# A step whose output is complete is skipped; a stopped training resumes from its last epoch, a
# stopped study from its cached pairs. Each model trained goes into the models folder under its
# card id (bidaf-cpu-scale, minilm-qa-cpu-scale), the id the study names it by. WITH_MINILM
# (default 0) adds MiniLM QA, STUDY_WITH_ASR (default 0) our flite -> pocketsphinx set; WORKERS
# (default 2) study workers.
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/noiseqa_xquad
OUT=runs/noiseqa_xquad
WORKERS=${WORKERS:-2}
BIDAF=runs/bidaf_cpu_scale
MINILM=runs/transformer_qa_cpu_scale
# the study reads these
export WITH_MINILM=${WITH_MINILM:-0} STUDY_WITH_ASR=${STUDY_WITH_ASR:-0}

step_train() {
  need "$DATA/squad/dev-v1.1.json" "SHARED_DATA must hold squad/dev-v1.1.json and xquad/xquad.en.json"
  train training_configs/bidaf_cpu_scale.jsonnet "$BIDAF"
  install_model bidaf-cpu-scale "$BIDAF/model.tar.gz"
  if [ "$WITH_MINILM" = 1 ]; then
    train training_configs/transformer_qa_cpu_scale.jsonnet "$MINILM"
    install_model minilm-qa-cpu-scale "$MINILM/model.tar.gz"
  fi
}

step_study() {
  need "$DATA/noiseqa/synthetic" "SHARED_DATA must hold NoiseQA's synthetic sets (noiseqa/synthetic/)"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers "$WORKERS"
}

step_status() {
  local archives=("$BIDAF/model.tar.gz" "$(installed bidaf-cpu-scale)")
  if [ "$WITH_MINILM" = 1 ]; then archives+=("$MINILM/model.tar.gz" "$(installed minilm-qa-cpu-scale)"); fi
  summary "${archives[@]}" "$OUT/study/results.json" "$RECIPE/results.json"
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
