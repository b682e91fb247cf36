# Shared by the reliability scripts: the binary, the simulated kernels and how to count trials.
# BLOCKTUNE: the blocktune binary (default: build/cli/blocktune of this checkout).
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BT=${BLOCKTUNE:-$ROOT/build/cli/blocktune}
SPACES=$ROOT/tests/data/spaces
SPECS=$ROOT/examples/specs
[ -x "$BT" ] || { echo "no blocktune binary at $BT (set BLOCKTUNE)" >&2; exit 2; }

# spec directory and recorded space of the four example kernels whose recordings match their spaces
KSPEC=(transpose reduction matmul conv2d)
KNAME=(transpose sum_of_squares matmul_tiled conv2d_5x5)
KREC=(transpose-8192x8192 sum_of_squares-67108864 matmul_tiled-2048x2048x2048 conv2d_5x5-8192x8192)

# problem size number K of family F (distinct for every F, K) for kernel index KI
problem_of() { # KI F K
  case $1 in
    0|3) echo "$((1000 + $2))x$((1000 + $3))" ;;
    1) echo "$(( ($2 + 1) * 1000000 + $3 ))" ;;
    2) echo "512x$((500 + $2))x$((500 + $3))" ;;
  esac
}

# simulated tune of kernel index KI on problem P into DB; extra arguments follow
sim_tune() { # KI P DB args...
  local ki=$1 p=$2 db=$3; shift 3
  "$BT" tune --spec "$SPECS/${KSPEC[$ki]}/spec.json" -p "$p" \
    --simulate "$SPACES/${KREC[$ki]}-h100-80gb-hbm3.csv.gz" --db "$db" -j1 "$@"
}

# number of trials stored in DB (from `db list`'s first line); empty when it cannot be read
trial_count() {
  "$BT" db --db "$1" list 2>/dev/null | awk 'NR == 1' | sed -n 's/.* \([0-9][0-9]*\) trials\{0,1\}$/\1/p'
}
