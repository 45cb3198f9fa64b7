#!/usr/bin/env bash
# Run a command under Nsight Compute with the metric set from aiperf_lab.metrics.config. Always
# bounded: a launch count is always set, so `--set full` never replays every kernel of a long run.
#
#   scripts/ncu_profile.sh [--chapter chN] [--preset minimal|roofline|deep_dive] [--set NAME]
#                          [--add-metric M] [--remove-metric M] [--kernel-regex RE]
#                          [--launch-skip N] [--launch-count N] [--nvtx-include RANGE]
#                          [--output NAME] -- CMD [ARGS...]
set -euo pipefail
py=${PYTHON:-python3}
usage() { sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; }
opts=()
output=ncu_profile
while [[ $# -gt 0 ]]; do
  case $1 in
    --chapter|--preset|--set|--add-metric|--remove-metric|--kernel-regex|--launch-skip|--launch-count|--nvtx-include)
      [[ $# -ge 2 ]] || { echo "ncu_profile.sh: $1 needs a value" >&2; exit 2; }
      opts+=("$1" "$2"); shift 2 ;;
    --output)
      [[ $# -ge 2 ]] || { echo "ncu_profile.sh: --output needs a value" >&2; exit 2; }
      output=$2; shift 2 ;;
    --) shift; break ;;
    -h|--help) usage; exit 0 ;;
    *) echo "ncu_profile.sh: unknown option $1 (the command goes after --)" >&2; exit 2 ;;
  esac
done
[[ $# -gt 0 ]] || { echo "ncu_profile.sh: no command after --" >&2; exit 2; }
command -v ncu >/dev/null || { echo "ncu_profile.sh: ncu (Nsight Compute) is not on the PATH" >&2; exit 2; }
flag_text=$("$py" -m aiperf_lab.metrics.config ncu-args --output "$output" "${opts[@]}")
mapfile -t flags <<< "$flag_text"
exec ncu "${flags[@]}" "$@"
