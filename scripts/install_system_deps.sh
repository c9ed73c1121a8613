#!/usr/bin/env bash
# Debian speech and translation engines used by the noise sources and synthesis commands:
# flite, espeak-ng and Festival with three voices (TTS), apertium eng<->spa (MT), sox (audio tools), IRSTLM (word
# language models for CTC beam decoding), and headless chromium
# (renders the comparison report in its test).
# Idempotent: does nothing when every tool is present already.
set -euo pipefail
need=()
command -v flite >/dev/null || need+=(flite)
command -v espeak-ng >/dev/null || need+=(espeak-ng)
command -v text2wave >/dev/null || need+=(festival)
[ -d /usr/share/festival/voices/english/kal_diphone ] || need+=(festvox-kallpc16k)
[ -d /usr/share/festival/voices/english/ked_diphone ] || need+=(festvox-kdlpc16k)
[ -d /usr/share/festival/voices/us/cmu_us_slt_arctic_hts ] || need+=(festvox-us-slt-hts)
command -v apertium >/dev/null || need+=(apertium)
[ -d /usr/share/apertium/apertium-eng-spa ] || need+=(apertium-eng-spa)
command -v sox >/dev/null || need+=(sox)
[ -x /usr/lib/irstlm/bin/tlm ] || need+=(irstlm)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "Missing Debian packages: ${need[*]}. Run as root: apt-get update && apt-get install -y ${need[*]}" >&2
    exit 0
  fi
fi
echo "Installing Debian packages: ${need[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
