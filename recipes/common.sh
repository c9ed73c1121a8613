# What the recipes' run.sh share; sourced from the repository root after `cd`:
#   source recipes/common.sh
# Each step of a recipe is skipped when its output is complete and resumed when it was stopped
# (`allennlp train --recover` from the last finished epoch; the noise, synthesis, transcription and
# study commands resume from their own journals and caches when run again with the same arguments).
# Call the steps one a line under `set -e` (not in an `a && b` list, where bash ignores `set -e`
# inside them), so that the first failing command stops the run. Each model a recipe trains goes into
# the models folder under its model card's id (`install_model`), the id its study names it by.
# TRAIN_OVERRIDES, when set, is handed to every `allennlp train` as `-o` (a JSON object of config
# keys), e.g. TRAIN_OVERRIDES='{"trainer.num_epochs": 1}' for a quick smoke run of a recipe. Give keys
# dotted: a key that is not dotted replaces its whole block (a "trainer" key drops the optimizer).
export PATH="$PWD/.venv/bin:$PATH"
DATA=${SHARED_DATA:-../shared/data}
STARTED=$(date +%s)

say() {  # a progress line with the time
  echo "$(date '+%F %T') $*"
}

epochs_done() {  # serialization folder -> number of finished epochs (empty: none)
  ls "$1"/model_state_e*_b0.th 2>/dev/null | sed 's/.*model_state_e\([0-9]*\)_b0.th/\1/' | sort -n | tail -1 || true
}

finished() {  # serialization folder: true when its training ran to its end. AllenNLP writes metrics.json
  # only then; a training stopped after an epoch (Ctrl-C, SIGTERM) also leaves a model.tar.gz, of its
  # best epoch so far, which no step may take for the finished model
  [ -f "$1/model.tar.gz" ] && [ -f "$1/metrics.json" ]
}

train() {  # config, serialization folder, [allennlp train options]: trains, resumes or skips
  local config=$1 folder=$2
  shift 2
  if finished "$folder"; then
    say "skip $folder: archived"
    return 0
  fi
  restore_snapshot "$folder"
  local mode=(-f)
  [ -f "$folder/config.json" ] && [ -n "$(epochs_done "$folder")" ] && mode=(--recover)
  mkdir -p "$(dirname "$folder")"
  say "train $config -> $folder (${mode[0]}; epochs done: $(epochs_done "$folder"); log $folder.log)"
  if [ -n "${TRAIN_OVERRIDES:-}" ]; then set -- -o "$TRAIN_OVERRIDES" "$@"; fi
  allennlp train "$config" -s "$folder" "${mode[@]}" "$@" >>"$folder.log" 2>&1 \
    || { say "FAILED: $config; see $folder.log"; return 1; }
  say "done $folder"
}

restore_snapshot() {  # training folder or job output: puts back the repository's snapshot of it
  # (models/snapshots, `allennlp snapshot`) when this machine holds less, so that the work continues
  allennlp snapshot restore --if-any "$1" | grep -v '^no snapshot of' || true
}

snapshot_under_way() {  # training folders or job outputs...: snapshots each one under way into
  # models/snapshots (commit them before the machine goes); finished or unstarted ones are left out
  local path
  for path in "$@"; do
    if [ -d "$path" ] && ! finished "$path" && [ -n "$(epochs_done "$path")" ]; then
      allennlp snapshot save "$path" || return 1
    elif [ ! -d "$path" ] && [ ! -e "$path" ] && compgen -G "$path.journal-*.jsonl" >/dev/null; then
      allennlp snapshot save "$path" || return 1
    fi
  done
}

models_folder() {  # where `allennlp models install` puts archives (srcframework/pretrained.py, models_folder)
  echo "${SRCFRAMEWORK_MODELS:-${XDG_CACHE_HOME:-$HOME/.cache}/srcframework/models}"
}

installed() {  # card id -> the path of its archive in the models folder
  echo "$(models_folder)/$1.tar.gz"
}

install_model() {  # card id, archive: copies the archive into the models folder under the card's id, once
  local card=$1 archive=$2
  need "$archive" "its training has not finished"
  finished "$(dirname "$archive")" || {
    echo "not installed: $archive is a stopped training's best epoch so far; run its step again to resume it" >&2
    return 1
  }
  if cmp -s "$archive" "$(installed "$card")"; then
    say "skip $card: installed"
    return 0
  fi
  allennlp models install "$card" --archive "$archive" >/dev/null || { say "FAILED: allennlp models install $card"; return 1; }
  say "installed $card: $(installed "$card")"
}

need() {  # file or folder, what makes it: stops with one line when it is missing
  [ -e "$1" ] || { echo "missing $1: $2" >&2; exit 1; }
}

need_finished() {  # serialization folder, what makes it: stops with one line unless its training ran to its end
  finished "$1" || { echo "missing the finished training $1 (model.tar.gz and metrics.json): $2" >&2; exit 1; }
}

report() {  # results.json of a study, recipe folder: copies it into the recipe, fills its README,
  # the figures of the model cards that name it, and the top README's models table
  local results=$1 recipe=$2
  need "$results" "run the study step first"
  cp "$results" "$recipe/results.json" || return 1
  python -m srcframework.studies.markdown_into "$recipe/results.json" "$recipe/README.md" || return 1
  allennlp models metrics --all || return 1
  allennlp models table --into README.md || return 1
  say "results: $recipe/results.json, the table in $recipe/README.md, the model cards and README.md's models table (commit them)"
}

progress() {  # training folders...: the learning curve of each one that has finished an epoch but not its training
  local folder
  for folder in "$@"; do
    if ! finished "$folder" && compgen -G "$folder/metrics_epoch_*.json" >/dev/null; then
      allennlp training-curve "$folder" | sed 's/^/  /'
    fi
  done
}

summary() {  # archive or output files...: what exists, and the time this run took
  local path
  for path in "$@"; do
    if [[ $path == */model.tar.gz ]] && [ -e "$path" ] && ! finished "$(dirname "$path")"; then
      echo "  stopped  $path (a stopped training's best epoch so far; its step resumes it)"
    elif [ -e "$path" ]; then echo "  done     $path"; else echo "  missing  $path"; fi
  done
  echo "  this run: $(( ($(date +%s) - STARTED) / 60 )) min"
}
