#!/usr/bin/env bash
# The cascade on XQuAD-en (recipes/cascade/README.md), from a fresh clone after `make install`, in
# one command from the repository root:
#   bash recipes/cascade/run.sh           # every step: speech, train, study, report
#   bash recipes/cascade/run.sh speech    # XQuAD-en read by flite kal16, transcribed by pocketsphinx
#   bash recipes/cascade/run.sh train     # the text models CASCADE_MODELS names, installed by card id
#   bash recipes/cascade/run.sh study     # allennlp compare on the archives
#   bash recipes/cascade/run.sh report    # results.json and the README table from the study
#   bash recipes/cascade/run.sh status    # what is done
# A step whose output is complete is skipped; synthesis and transcription resume from what they
# wrote, a training from its last epoch, the study from its cached pairs. Each model trained goes
# into the models folder under its card id (bidaf-cpu-scale, minilm-qa-cpu-scale,
# minilm-qa-cpu-scale-2400), the id the study names it by. CASCADE_MODELS (default
# bidaf,minilm,minilm_2400); WORKERS (default 2) synthesis, transcription and study workers.
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/cascade
OUT=runs/cascade
WORKERS=${WORKERS:-2}
export CASCADE_MODELS=${CASCADE_MODELS:-bidaf,minilm,minilm_2400}
SPOKEN=$OUT/xquad_kal16
TRANSCRIPTS=$SPOKEN/transcripts_pocketsphinx.json

config_of() {  # model name -> training config, serialization folder and model card id
  case $1 in
    bidaf) echo "training_configs/bidaf_cpu_scale.jsonnet runs/bidaf_cpu_scale bidaf-cpu-scale" ;;
    minilm) echo "training_configs/transformer_qa_cpu_scale.jsonnet runs/transformer_qa_cpu_scale minilm-qa-cpu-scale" ;;
    minilm_2400) echo "$RECIPE/transformer_qa_cpu_scale_2400.jsonnet $OUT/transformer_qa_cpu_scale_2400 minilm-qa-cpu-scale-2400" ;;
    *) echo "CASCADE_MODELS: unknown model $1; the models are bidaf, minilm, minilm_2400" >&2; return 2 ;;
  esac
}

models() {  # "config folder card" of each model CASCADE_MODELS names, one a line; stops at an unknown one
  local name
  for name in ${CASCADE_MODELS//,/ }; do config_of "$name" || exit 2; done
}

step_speech() {
  need "$DATA/xquad/xquad.en.json" "SHARED_DATA must hold xquad/xquad.en.json"
  if [ -f "$SPOKEN/fid2qid_dev.csv" ]; then say "skip $SPOKEN: spoken"; else
    say "synthesize $SPOKEN (flite kal16)"
    allennlp synthesize-speech "$DATA/xquad/xquad.en.json" "$SPOKEN" --voices flite:kal16 --workers "$WORKERS"
  fi
  if [ -f "$TRANSCRIPTS" ]; then say "skip $TRANSCRIPTS: transcribed"; else
    say "transcribe $SPOKEN (pocketsphinx)"
    allennlp transcribe "$SPOKEN" "$TRANSCRIPTS" --recognizer pocketsphinx --workers "$WORKERS"
  fi
}

step_train() {
  local config folder card
  models >/dev/null
  while read -r -u 3 config folder card; do
    train "$config" "$folder"
    install_model "$card" "$folder/model.tar.gz"
  done 3< <(models)
}

step_study() {
  need "$TRANSCRIPTS" "run the speech step first"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --workers "$WORKERS"
}

step_status() {
  local config folder card archives=()
  models >/dev/null
  while read -r config folder card; do archives+=("$folder/model.tar.gz" "$(installed "$card")"); done < <(models)
  summary "$SPOKEN/fid2qid_dev.csv" "$TRANSCRIPTS" "${archives[@]}" "$OUT/study/results.json" "$RECIPE/results.json"
}

case "${1:-all}" in
  speech) step_speech ;;
  train) step_train ;;
  study) step_study ;;
  report) report "$OUT/study/results.json" "$RECIPE" ;;
  status) step_status ;;
  all)
    step_speech
    step_train
    step_study
    report "$OUT/study/results.json" "$RECIPE"
    step_status
    ;;
  *) echo "usage: $0 [all|speech|train|study|report|status]" >&2; exit 2 ;;
esac
