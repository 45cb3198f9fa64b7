#!/usr/bin/env bash
# Run a command under Nsight Systems with the trace set from aiperf_lab.metrics.config, so a profile
# started by hand collects what the labs and triage collect.
#
#   scripts/nsys_profile.sh [--chapter chN] [--preset minimal|roofline|deep_dive]
#                           [--add-trace T] [--remove-trace T] [--output NAME] -- CMD [ARGS...]
set -euo pipefail
py=${PYTHON:-python3}
usage() { sed -n '2,6p' "$0" | sed 's/^# \{0,1\}//'; }
opts=()
output=nsys_profile
while [[ $# -gt 0 ]]; do
  case $1 in
    --chapter|--preset|--add-trace|--remove-trace)
      [[ $# -ge 2 ]] || { echo "nsys_profile.sh: $1 needs a value" >&2; exit 2; }
      opts+=("$1" "$2"); shift 2 ;;
    --output)
      [[ $# -ge 2 ]] || { echo "nsys_profile.sh: --output needs a value" >&2; exit 2; }
      output=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage; exit 0 ;;
    *) echo "nsys_profile.sh: unknown option $1 (the command goes after --)" >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "nsys_profile.sh: no command after --" >&2; exit 2; }
command -v nsys >/dev/null || { echo "nsys_profile.sh: nsys (Nsight Systems) is not on the PATH" >&2; exit 2; }
flag_text=$("$py" -m aiperf_lab.metrics.config nsys-args --output "$output" "${opts[@]}")
mapfile -t flags <<< "$flag_text"
exec nsys profile "${flags[@]}" "$@"
