# Sourced by the scripts in this directory and in benchmark/ (run-all.sh, verdict.sh, interleaved.sh,
# profile-pipeline.sh) before common.sh, so that their arguments are checked before
# anything else (common.sh needs benchmarks.jar): a script given bad arguments says what was wrong and how
# to call it (its header from "# Usage:" on), on standard error, and exits 2; -h or --help prints the usage
# and exits 0.
script="$(cd "$(dirname "$0")" && pwd)/$(basename "$0")" # the calling script, as a path that survives a cd
script_usage() { sed -n '/^# Usage:/,/^[^#]/{/^#/s/^# \{0,1\}//p}' "$script"; }
usage_error() { { echo "$(basename "$script"): $1"; script_usage; } >&2; exit 2; }
handle_help() { # "$@"
  local a
  for a in "$@"; do [[ $a == -h || $a == --help ]] && { script_usage; exit 0; }; done
  return 0
}
# no_arguments "$@": for the scripts whose settings are all environment variables
no_arguments() { handle_help "$@"; (( $# == 0 )) || usage_error "takes no arguments (settings are environment variables): $*"; }
# require_count NAME VALUE: VALUE is a whole number above 0
require_count() { [[ $2 =~ ^[1-9][0-9]*$ ]] || usage_error "$1 must be a whole number above 0: $1=$2"; }
# require_file NAME VALUE: VALUE names an existing file
require_file() { [[ -f $2 ]] || usage_error "$1 is not a file: $1=$2"; }
