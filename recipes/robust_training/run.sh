#!/usr/bin/env bash
# Robust training at CPU scale, end to end: the training split, its noisy copies, the XQuAD ASR
# test sets, the four BiDAF models (clean, augmented, augmented by replacing, ASR transcripts), the
# clean and augmented twins trained on to 8 and 10 epochs, optionally MiniLM QA augmented (WITH_MINILM=1),
# and the study. Every step is skipped when its output exists, and the
# noise steps resume from their journals, so a killed run picks up where it stopped.
#   bash scripts/robust_training.sh            # from the repository root, after `make install`
# WORKERS (default 2) sets the noise jobs' worker processes.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PWD/.venv/bin:$PATH"
WORKERS=${WORKERS:-2}
DATA=${SHARED_DATA:-../shared/data}
SPLIT=runs/data/squad_dev_minus_xquad.json
NOISY=runs/noisy
mkdir -p runs/data "$NOISY" logs

[ -f "$SPLIT" ] || python scripts/make_training_split.py --output "$SPLIT"

# noisy copies of the 9,380 training questions
ASR_FAST='{"type": "asr", "synthesizers": [{"type": "flite", "voice": "kal16"}, {"type": "flite", "voice": "awb"}, {"type": "flite", "voice": "slt"}], "recognizer": {"type": "pocketsphinx", "preset": "fast"}}'
[ -f "$NOISY/train_asr.json" ] || allennlp noise "$SPLIT" "$NOISY/train_asr.json" --noise "$ASR_FAST" --workers "$WORKERS"
for name in keyboard misspelling back_translation; do
  [ -f "$NOISY/train_$name.json" ] || allennlp noise "$SPLIT" "$NOISY/train_$name.json" --noise "$name" --workers "$WORKERS"
done

# XQuAD spoken by a held-out voice (rms) and, with STUDY_WITH_ASR=1, a training voice (kal16);
# pocketsphinx with its default search
XQUAD="$DATA/xquad/xquad.en.json"
for voice in rms $([ "${STUDY_WITH_ASR:-0}" = 1 ] && echo kal16); do
  [ -f "$NOISY/xquad_asr_$voice.json" ] || allennlp noise "$XQUAD" "$NOISY/xquad_asr_$voice.json" --workers "$WORKERS" \
    --noise "{\"type\": \"asr\", \"synthesizer\": {\"type\": \"flite\", \"voice\": \"$voice\"}, \"recognizer\": {\"type\": \"pocketsphinx\"}}"
done

train() {  # config, serialization folder
  [ -f "$2/model.tar.gz" ] || allennlp train "training_configs/$1.jsonnet" -s "$2" -f
}
train bidaf_cpu_scale runs/bidaf_cpu_scale
train bidaf_cpu_scale_augmented runs/bidaf_cpu_scale_augmented
train bidaf_cpu_scale_augmented_mix runs/bidaf_cpu_scale_augmented_mix
export BIDAF_AUGMENTED_MIX_ARCHIVE=runs/bidaf_cpu_scale_augmented_mix/model.tar.gz
# the augmented model after 2 of its 3 (1.5 times longer) epochs: about the clean model's updates
E2=runs/bidaf_cpu_scale_augmented_e2/model.tar.gz
[ -f "$E2" ] || python scripts/archive_checkpoint.py runs/bidaf_cpu_scale_augmented --epoch 2 --output "$E2"
export BIDAF_AUGMENTED_E2_ARCHIVE=$E2
train bidaf_cpu_scale_asr_transcripts runs/bidaf_cpu_scale_asr_transcripts

# the clean and augmented twins trained on from their 3 epochs to 8, then to 10 (optimizer state
# kept), each compared at its last epoch (no epoch is chosen on a test set)
source scripts/training_steps.sh
extend runs/bidaf_cpu_scale bidaf_cpu_scale_long runs/bidaf_cpu_scale_long 8 ''
# (the 3-epoch augmented run's saved config wrote the same weights unnormalised)
extend runs/bidaf_cpu_scale_augmented bidaf_cpu_scale_augmented_long runs/bidaf_cpu_scale_augmented_long 8 '' \
  --allow dataset_reader.noisy_copy_weights
export BIDAF_LONG_ARCHIVE=runs/bidaf_cpu_scale_long/epoch8.tar.gz
export BIDAF_AUGMENTED_LONG_ARCHIVE=runs/bidaf_cpu_scale_augmented_long/epoch8.tar.gz
# epochs 9 and 10: clean, and with every question's noisy copy (the noise share grows from 1/2 to 1)
extend runs/bidaf_cpu_scale_long bidaf_cpu_scale_long10 runs/bidaf_cpu_scale_long10 10 ''
extend runs/bidaf_cpu_scale_augmented_long bidaf_cpu_scale_augmented_grow runs/bidaf_cpu_scale_augmented_grow 10 '' \
  --allow dataset_reader.noisy_copy_weights --allow vocabulary
export BIDAF_LONG10_ARCHIVE=runs/bidaf_cpu_scale_long10/epoch10.tar.gz
export BIDAF_AUGMENTED_GROW_ARCHIVE=runs/bidaf_cpu_scale_augmented_grow/epoch10.tar.gz
if [ "${WITH_MINILM:-0}" = 1 ]; then
  train transformer_qa_cpu_scale runs/transformer_qa_cpu_scale
  train transformer_qa_cpu_scale_augmented runs/transformer_qa_cpu_scale_augmented
  export TRANSFORMER_ARCHIVE=runs/transformer_qa_cpu_scale/model.tar.gz
  export TRANSFORMER_AUGMENTED_ARCHIVE=runs/transformer_qa_cpu_scale_augmented/model.tar.gz
fi

allennlp compare training_configs/studies/robust_training.jsonnet -o runs/studies/robust_training --workers "$WORKERS"
