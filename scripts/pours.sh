#!/bin/bash
# Every bottle poured into every glass of the shipped scenes by one robot: the scene
# suffix names it ("" = the Jaco pair, _ur5e, _panda). Usage: scripts/pours.sh _panda
set -u
cd "$(dirname "$0")/.."
suffix=${1:-}
bin=${ATTENTIVE_BIN:-target/release/attentive}
for pair in "softdrinks cola_bottle red_glass" "softdrinks cola_bottle blue_glass" "softdrinks fanta_bottle red_glass" "softdrinks fanta_bottle blue_glass" "softdrinks cola_zero_bottle red_glass" "softdrinks cola_zero_bottle blue_glass" "dinner wine_bottle wine_glass" "dinner beer_bottle large_glass" "dinner soda_bottle large_glass" "coffee milk_bottle large_cup" "coffee coffee_pot large_cup" "coffee coffee_pot small_cup"; do
  set -- $pair
  out=$($bin --json tool --scene $1$suffix pour_into "{\"source_container_name\":\"$2\",\"target_container_name\":\"$3\"}" 2>/dev/null | python3 -c "import json,sys; d=json.loads(sys.stdin.read()); print(('OK  ' if d['ok'] else 'FAIL'), d['text'][:110])")
  echo "$1 $2 -> $3: $out"
done
