#!/usr/bin/env bash
# Debian speech and translation engines used by the noise sources and synthesis commands:
# flite, espeak-ng and Festival with three voices (TTS), apertium eng<->spa (MT), sox (audio tools), IRSTLM (word
# language models for CTC beam decoding), jemalloc (the training benchmark's `--allocator jemalloc`), python3-venv where `python3 -m venv` lacks ensurepip, and
# headless chromium where apt has it (renders the comparison report in its test; optional).
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
[ -n "$(find /usr/lib /usr/lib64 /usr/local/lib -maxdepth 2 -name libjemalloc.so.2 2>/dev/null | head -n 1)" ] || need+=(libjemalloc2)
python3 -c "import ensurepip" 2>/dev/null || need+=(python3-venv)  # `python3 -m venv` needs it on Debian
# chromium apart: optional (one test renders the report with it, skipped without it), and Ubuntu
# has no such apt package
browser=()
command -v chromium >/dev/null || command -v chromium-browser >/dev/null || browser=(chromium)
if [ ${#need[@]} -eq 0 ] && [ ${#browser[@]} -eq 0 ]; then exit 0; fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null; then SUDO="sudo"; else
    echo "Missing Debian packages: ${need[*]} ${browser[*]}. Run as root: apt-get update && apt-get install -y ${need[*]} ${browser[*]}" >&2
    exit 0
  fi
fi
echo "Installing Debian packages: ${need[*]} ${browser[*]}"
$SUDO apt-get update -qq
if [ ${#need[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${need[@]}" >/dev/null
fi
if [ ${#browser[@]} -gt 0 ]; then
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null \
    || echo "chromium could not be installed: the test that renders the comparison report is skipped" >&2
fi
