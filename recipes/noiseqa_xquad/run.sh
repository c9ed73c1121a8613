#!/usr/bin/env bash
# The NoiseQA study on XQuAD-en (recipes/noiseqa_xquad/README.md), from a fresh clone after
# `make install`, in one command from the repository root:
#   bash recipes/noiseqa_xquad/run.sh           # every step: train, study, report
#   bash recipes/noiseqa_xquad/run.sh train     # the CPU-scale BiDAF (and with WITH_MINILM=1 the MiniLM QA model)
#   bash recipes/noiseqa_xquad/run.sh study     # allennlp compare on the archives
#   bash recipes/noiseqa_xquad/run.sh report    # results.json and the README table from the study
#   bash recipes/noiseqa_xquad/run.sh status    # what is done
# A step whose output is complete is skipped; a stopped training resumes from its last epoch, a
# stopped study from its cached pairs. WITH_MINILM (default 0) adds MiniLM QA, STUDY_WITH_ASR
# (default 0) our flite -> pocketsphinx set; WORKERS (default 2) study workers.
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/noiseqa_xquad
OUT=runs/noiseqa_xquad
WORKERS=${WORKERS:-2}
WITH_MINILM=${WITH_MINILM:-0}
BIDAF=runs/bidaf_cpu_scale
MINILM=runs/transformer_qa_cpu_scale
export BIDAF_ARCHIVE=$BIDAF/model.tar.gz STUDY_WITH_ASR=${STUDY_WITH_ASR:-0}
export TRANSFORMER_ARCHIVE=$([ "$WITH_MINILM" = 1 ] && echo "$MINILM/model.tar.gz" || true)

step_train() {
  need "$DATA/squad/dev-v1.1.json" "SHARED_DATA must hold squad/dev-v1.1.json and xquad/xquad.en.json"
  train training_configs/bidaf_cpu_scale.jsonnet "$BIDAF"
  if [ "$WITH_MINILM" = 1 ]; then train training_configs/transformer_qa_cpu_scale.jsonnet "$MINILM"; fi
}

step_study() {
  need "$DATA/noiseqa/synthetic" "SHARED_DATA must hold NoiseQA's synthetic sets (noiseqa/synthetic/)"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers "$WORKERS"
}

step_status() {
  summary "$BIDAF/model.tar.gz" ${TRANSFORMER_ARCHIVE:+"$TRANSFORMER_ARCHIVE"} "$OUT/study/results.json" "$RECIPE/results.json"
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
