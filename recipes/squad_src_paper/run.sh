#!/usr/bin/env bash
# SQuAD-SRC at paper scale (recipes/squad_src_paper/README.md): cascaded against end-to-end on the
# real recordings, for a machine with a GPU, the SQuAD-SRC audio and the SpeechT5 weights; in one
# command from the repository root, after `make install`:
#   bash recipes/squad_src_paper/run.sh              # every step below but `check`, in order
#   bash recipes/squad_src_paper/run.sh split        # training and held-out maps of the training recordings
#   bash recipes/squad_src_paper/run.sh text         # the text BiDAF on SQuAD v1.1 train (the cascade's QA model)
#   bash recipes/squad_src_paper/run.sh e2e          # the end-to-end model (TEXT_TWIN=1: its text-question twin too)
#   bash recipes/squad_src_paper/run.sh transcribe   # the dev recordings by RECOGNIZER (default pocketsphinx)
#   bash recipes/squad_src_paper/run.sh study        # allennlp compare
#   bash recipes/squad_src_paper/run.sh report       # results.json and the README table from the study
#   bash recipes/squad_src_paper/run.sh status       # what is done
#   bash recipes/squad_src_paper/run.sh check        # on a CPU, no downloads: the e2e model learns 300 synthesized questions
# A step whose output is complete is skipped; a training resumes from its last epoch, the
# transcription from its journal, the study from its cached pairs. The two models of the study go
# into the models folder under their card ids (bidaf-squad, e2e-speecht5-squad-src), the ids the
# study names them by. CUDA_DEVICE (default 0 where nvidia-smi finds a GPU, else -1); SRC
# (default SHARED_DATA/squad_src: fid2qid_{train,dev}.csv and wavs/); SQUAD_TRAIN (a local file or
# the official URL); SPEECHT5 (microsoft/speecht5_asr).
set -euo pipefail
cd "$(dirname "$0")/../.."
source recipes/common.sh
RECIPE=recipes/squad_src_paper
OUT=runs/squad_src_paper
SRC=${SRC:-$DATA/squad_src}
MAPS=$OUT/maps
CUDA_DEVICE=${CUDA_DEVICE:-$(nvidia-smi -L >/dev/null 2>&1 && echo 0 || echo -1)}
ON_DEVICE="{\"trainer\": {\"cuda_device\": $CUDA_DEVICE}}"
export SRC_TRANSCRIPTS=$OUT/transcripts.json SRC_DEV=$SRC/fid2qid_dev.csv
export SRC_TRAIN=$MAPS/fid2qid_train.csv SRC_HELDOUT=$MAPS/fid2qid_heldout.csv

squad_train() {  # a local copy of SQuAD v1.1 train (downloaded once into AllenNLP's cache)
  local source=${SQUAD_TRAIN:-$DATA/squad/train-v1.1.json}
  [ -f "$source" ] || source=${SQUAD_TRAIN:-https://rajpurkar.github.io/SQuAD-explorer/dataset/train-v1.1.json}
  if [ -f "$source" ]; then echo "$source"; return 0; fi
  python -c "import sys; from allennlp.common.file_utils import cached_path; print(cached_path(sys.argv[1]))" "$source"
}

step_split() {
  need "$SRC/wavs" "the SQuAD-SRC recordings go in $SRC/wavs (they are distributed apart from the id maps)"
  if [ -f "$SRC_TRAIN" ] && [ -f "$SRC_HELDOUT" ]; then say "skip $MAPS: split"; return 0; fi
  mkdir -p "$MAPS"
  ln -sfn "$(realpath "$SRC/wavs")" "$MAPS/wavs"
  [ -f "$SRC/speakers.tsv" ] && cp "$SRC/speakers.tsv" "$MAPS/"
  # the articles the text configs hold out of SQuAD train (share 0.1, seed 0) validate here too
  python recipes/e2e_cpu/split_spoken_ids.py "$SRC/fid2qid_train.csv" --squad-file "$(squad_train)" \
    --train "$SRC_TRAIN" --held-out "$SRC_HELDOUT"
}

step_text() {
  SQUAD_TRAIN=$(squad_train) train training_configs/bidaf.jsonnet "$OUT/bidaf" -o "$ON_DEVICE"
  install_model bidaf-squad "$OUT/bidaf/model.tar.gz"
}

step_e2e() {
  need "$SRC_TRAIN" "run the split step first"
  SRC_SQUAD_FILE=$(squad_train) train "$RECIPE/e2e_speecht5.jsonnet" "$OUT/e2e_speecht5" -o "$ON_DEVICE"
  install_model e2e-speecht5-squad-src "$OUT/e2e_speecht5/model.tar.gz"
  if [ "${TEXT_TWIN:-0}" = 1 ]; then
    SQUAD_TRAIN=$(squad_train) train "$RECIPE/e2e_speecht5_text.jsonnet" "$OUT/e2e_speecht5_text" -o "$ON_DEVICE"
    install_model e2e-speecht5-text-squad-src "$OUT/e2e_speecht5_text/model.tar.gz"
  fi
}

step_transcribe() {
  need "$SRC/wavs" "the SQuAD-SRC recordings go in $SRC/wavs"
  if [ -f "$SRC_TRANSCRIPTS" ]; then say "skip $SRC_TRANSCRIPTS: transcribed"; return 0; fi
  say "transcribe $SRC (dev) -> $SRC_TRANSCRIPTS"
  allennlp transcribe "$SRC" "$SRC_TRANSCRIPTS" --split dev --squad "$DATA/squad/dev-v1.1.json" \
    --recognizer "${RECOGNIZER:-pocketsphinx}" --workers "${WORKERS:-2}"
}

step_study() {
  need "$(installed bidaf-squad)" "run the text step first"
  need "$(installed e2e-speecht5-squad-src)" "run the e2e step first"
  if [ "${TEXT_TWIN:-0}" = 1 ]; then need "$(installed e2e-speecht5-text-squad-src)" "run TEXT_TWIN=1 ... run.sh e2e first"; fi
  need "$SRC_TRANSCRIPTS" "run the transcribe step first"
  say "study -> $OUT/study"
  allennlp compare "$RECIPE/study.jsonnet" -o "$OUT/study" --cuda-device "$CUDA_DEVICE"
}

step_check() {  # the end-to-end model learns: train and validate on 300 synthesized questions, tiny SpeechT5
  local folder=$OUT/check
  if [ -f "$folder/src300/fid2qid_dev.csv" ]; then say "skip $folder/src300: spoken"; else
    allennlp synthesize-speech "$DATA/squad/dev-v1.1.json" "$folder/src300" --limit 300 \
      --voices flite:kal16,flite:awb,flite:slt,espeak_ng:en-029 --workers "${WORKERS:-2}"
  fi
  [ -f "$folder/tiny_speecht5/config.json" ] || python tests/tiny_models.py speecht5 "$folder/tiny_speecht5"
  # the floor: the same model untrained, on the same questions
  SPEECHT5=$folder/tiny_speecht5 SRC_TRAIN=$folder/src300/fid2qid_dev.csv SRC_SQUAD_FILE= \
    python scripts/evaluate_untrained.py "$RECIPE/e2e_speecht5_overfit.jsonnet" "$folder/src300/fid2qid_dev.csv"
  SPEECHT5=$folder/tiny_speecht5 SRC_TRAIN=$folder/src300/fid2qid_dev.csv SRC_SQUAD_FILE= EPOCHS=${EPOCHS:-25} \
    train "$RECIPE/e2e_speecht5_overfit.jsonnet" "$folder/e2e_overfit"
  python -c "import json, sys; m = json.load(open(sys.argv[1])); print('training-set F1: best %.1f (epoch %d)' % (100 * m['best_validation_f1'], m['best_epoch']))" \
    "$folder/e2e_overfit/metrics.json"
}

step_status() {
  local twin=()
  if [ "${TEXT_TWIN:-0}" = 1 ]; then twin=("$OUT/e2e_speecht5_text/model.tar.gz" "$(installed e2e-speecht5-text-squad-src)"); fi
  summary "$SRC/wavs" "$SRC_TRAIN" "$OUT/bidaf/model.tar.gz" "$OUT/e2e_speecht5/model.tar.gz" "$(installed bidaf-squad)" \
    "$(installed e2e-speecht5-squad-src)" "${twin[@]}" "$SRC_TRANSCRIPTS" "$OUT/study/results.json" "$RECIPE/results.json"
  echo "  device: cuda $CUDA_DEVICE"
}

case "${1:-all}" in
  split) step_split ;;
  text) step_text ;;
  e2e) step_e2e ;;
  transcribe) step_transcribe ;;
  study) step_study ;;
  report) report "$OUT/study/results.json" "$RECIPE" ;;
  status) step_status ;;
  check) step_check ;;
  all)
    step_split
    step_text
    step_e2e
    step_transcribe
    step_study
    report "$OUT/study/results.json" "$RECIPE"
    step_status
    ;;
  *) echo "usage: $0 [all|split|text|e2e|transcribe|study|report|status|check]" >&2; exit 2 ;;
esac
