#!/usr/bin/env bash
# Long fuzzing runs of binlog-relay's Jazzer targets (docs/fuzzing.md says what each one asserts).
#
# Usage: scripts/fuzz.sh list
#        scripts/fuzz.sh TARGET|all MINUTES [--no-build] [--no-sync]
#
#   list         print the targets: name, module, class, method
#   TARGET       a name from the list (e.g. gtid-mysql-text), or "all" to run every target one after another
#   MINUTES      fuzzing time per target; 0 only minimises the corpus (generated and committed) into the
#                committed inputs directory
#   --no-build   do not compile first (the module and its upstream modules were built from this tree)
#   --no-sync    leave the committed corpus alone after the run
#
# Each target runs alone, niced, in Jazzer's fuzzing mode (JAZZER_FUZZ=1) through Maven's normal test run of
# its module. New coverage goes to MODULE/.cifuzz-corpus/CLASS/METHOD (git-ignored); a failing input is written
# by Jazzer straight into the committed inputs directory
# MODULE/src/test/resources/PACKAGE/CLASSInputs/METHOD/crash-* and the run stops there. After the run the
# generated corpus and the committed one are minimised together (libFuzzer -merge=1) into that inputs directory
# (crash-* files stay), which is what regression mode replays in every build. Logs go to target/fuzz/NAME-DATE.log; the last lines of libFuzzer
# (executions, coverage, corpus) are printed at the end.
#
# Extra libFuzzer flags can be given in FUZZ_LIBFUZZER_ARGS (space-separated, e.g. "-use_value_profile=1").
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

# name module class method max_len
TARGETS=(
  "packet-frames             protocol org.binlogrelay.protocol.packet.PacketFuzzTest                 frames                    8192"
  "handshake-client-response protocol org.binlogrelay.protocol.handshake.HandshakeFuzzTest           clientHandshakeResponse   4096"
  "handshake-server-packets  protocol org.binlogrelay.protocol.handshake.HandshakeFuzzTest           serverPackets             4096"
  "auth-stored-hash          protocol org.binlogrelay.protocol.auth.AuthFuzzTest                     storedHash                512"
  "auth-exchange             protocol org.binlogrelay.protocol.auth.AuthFuzzTest                     exchange                  2048"
  "query-statement           protocol org.binlogrelay.protocol.query.SqlParserFuzzTest               statement                 4096"
  "event-binlog-file         protocol org.binlogrelay.protocol.event.BinlogEventFuzzTest             binlogFile                65536"
  "event-stream-event        protocol org.binlogrelay.protocol.event.BinlogEventFuzzTest             streamEvent               8192"
  "gtid-mysql-text           protocol org.binlogrelay.protocol.gtid.GtidFuzzTest                     mysqlText                 4096"
  "gtid-mysql-binary         protocol org.binlogrelay.protocol.gtid.GtidFuzzTest                     mysqlBinary               4096"
  "gtid-mariadb-text         protocol org.binlogrelay.protocol.gtid.GtidFuzzTest                     mariadbText               4096"
  "gtid-mariadb-gtid-list    protocol org.binlogrelay.protocol.gtid.GtidFuzzTest                     mariadbGtidList           4096"
  "storage-recovery          storage  org.binlogrelay.storage.RecoveryFuzzTest                       recoverDamagedTail        4096"
)

log() { printf '[fuzz] %s\n' "$*" >&2; }
die() { log "ERROR: $*"; exit 2; }

list() {
  printf '%-26s %-9s %s\n' NAME MODULE "CLASS#METHOD (max_len)"
  for t in "${TARGETS[@]}"; do
    read -r name module class method maxlen <<<"$t"
    printf '%-26s %-9s %s#%s (%s)\n' "$name" "$module" "$class" "$method" "$maxlen"
  done
}

[[ $# -ge 1 ]] || { sed -n '2,24p' "$0"; exit 2; }
if [[ "$1" == list ]]; then
  list
  exit 0
fi
[[ $# -ge 2 ]] || die "give the minutes per target, e.g. scripts/fuzz.sh $1 10"
WHICH="$1"
MINUTES="$2"
shift 2
[[ "$MINUTES" =~ ^[0-9]+$ ]] || die "MINUTES must be a whole number, got '$MINUTES'"
BUILD=1
SYNC=1
for arg in "$@"; do
  case "$arg" in
    --no-build) BUILD=0 ;;
    --no-sync) SYNC=0 ;;
    *) die "unknown option $arg" ;;
  esac
done

SELECTED=()
for t in "${TARGETS[@]}"; do
  read -r name _ <<<"$t"
  if [[ "$WHICH" == all || "$WHICH" == "$name" ]]; then
    SELECTED+=("$t")
  fi
done
[[ ${#SELECTED[@]} -gt 0 ]] || die "no target '$WHICH'; see scripts/fuzz.sh list"

mkdir -p "$REPO/target/fuzz"
cd "$REPO"

if [[ $BUILD == 1 ]]; then
  modules=$(for t in "${SELECTED[@]}"; do read -r _ module _ <<<"$t"; echo "$module"; done | sort -u | paste -sd,)
  log "compiling $modules and its upstream modules"
  nice -n 19 mvn -B -ntp -o -q test-compile -pl "$modules" -am
fi

# The module's test classpath, with this tree's protocol classes in place of an installed protocol jar.
classpath() {
  local module="$1" cpfile="$REPO/target/fuzz/$module.cp"
  if [[ ! -s "$cpfile" ]]; then
    nice -n 19 mvn -B -ntp -o -q dependency:build-classpath -pl "$module" -Dmdep.includeScope=test \
      -Dmdep.outputFile="$cpfile" >/dev/null
  fi
  local cp
  cp="$REPO/$module/target/classes:$REPO/$module/target/test-classes:$(cat "$cpfile")"
  cp=$(tr ':' '\n' <<<"$cp" | sed -E "s|.*/binlog-relay-protocol-[^/]*-tests\.jar$|$REPO/protocol/target/test-classes|;
    s|.*/binlog-relay-protocol-[^/]*[0-9T]\.jar$|$REPO/protocol/target/classes|" | paste -sd:)
  echo "$cp"
}

# Minimises the generated corpus together with the committed one (libFuzzer's -merge=1, through standalone
# Jazzer) and puts the result in the committed inputs directory; crash-* reproducers there stay as they are.
sync_corpus() {
  local module="$1" class="$2" method="$3"
  local generated="$REPO/$module/.cifuzz-corpus/$class/$method"
  local inputs="$REPO/$module/src/test/resources/${class//.//}Inputs/$method"
  [[ -d "$generated" ]] || { log "no generated corpus in $generated"; return; }
  local work cp
  cp=$(classpath "$module")
  work=$(mktemp -d)
  mkdir -p "$inputs" "$work/old" "$work/merged"
  find "$inputs" -maxdepth 1 -type f ! -name 'crash-*' -exec cp {} "$work/old/" \;
  log "minimising the corpus of $class#$method ($(ls "$generated" | wc -l) generated + $(ls "$work/old" | wc -l) committed)"
  if (cd "$REPO/$module" && nice -n 19 java -cp "$cp" com.code_intelligence.jazzer.Jazzer \
      --target_class="$class" --target_method="$method" --hooks=true -merge=1 "$work/merged" "$work/old" \
      "$generated" >"$work/merge.log" 2>&1) && [[ -n "$(ls -A "$work/merged")" ]]; then
    find "$inputs" -maxdepth 1 -type f ! -name 'crash-*' -delete
    cp "$work/merged"/* "$inputs"/ 2>/dev/null || true
    grep -E 'MERGE-OUTER: [0-9]+ new files' "$work/merge.log" >&2 || true
  else
    log "merge failed (see $work/merge.log); the committed corpus is unchanged"
    return
  fi
  log "corpus of $class#$method: $(find "$inputs" -maxdepth 1 -type f ! -name 'crash-*' | wc -l) files," \
    "$(find "$inputs" -maxdepth 1 -type f ! -name 'crash-*' -printf '%s\n' | awk '{s+=$1} END {print s+0}') bytes"
  rm -rf "$work"
}

status=0
for t in "${SELECTED[@]}"; do
  read -r name module class method maxlen <<<"$t"
  if [[ "$MINUTES" == 0 ]]; then
    sync_corpus "$module" "$class" "$method"
    continue
  fi
  logfile="$REPO/target/fuzz/$name-$(date +%Y%m%d-%H%M%S).log"
  mkdir -p "$REPO/$module/src/test/resources/${class//.//}Inputs/$method"
  log "$name: fuzzing $class#$method for $MINUTES minutes (log: ${logfile#"$REPO"/})"
  args=(-Djazzer.hooks=true -Djazzer.internal.arg.0=jazzer -Djazzer.internal.arg.1=-timeout=30 -Djazzer.internal.arg.2=-max_len="$maxlen"
    -Djazzer.internal.arg.3=-print_final_stats=1)
  i=4
  for extra in ${FUZZ_LIBFUZZER_ARGS:-}; do
    args+=("-Djazzer.internal.arg.$i=$extra")
    i=$((i + 1))
  done
  set +e
  JAZZER_FUZZ=1 nice -n 19 mvn -B -ntp -o test -pl "$module" -am -Dtest="$class#$method" \
    -Dsurefire.failIfNoSpecifiedTests=false -Djazzer.max_duration="${MINUTES}m" "${args[@]}" >"$logfile" 2>&1
  rc=$?
  set -e
  if [[ $rc -ne 0 ]]; then
    status=1
    log "$name: FAILED (exit $rc): a finding or a build error; see $logfile"
    grep -E '== Java Exception|^Caused by|crash-|Test unit written' "$logfile" | head -20 >&2 || true
  fi
  grep -E '^#[0-9]+.*(DONE|cov:)|Done [0-9]+ runs|stat::' "$logfile" | tail -8 >&2 || true
  if [[ $SYNC == 1 ]]; then
    sync_corpus "$module" "$class" "$method"
  fi
  # One line per run in target/fuzz/summary.tsv: name, start, seconds, executions, exec/s, cov, ft, corpus
  # entries in memory at the end, outcome.
  last=$(grep -E '^#[0-9]+' "$logfile" | tail -1)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$(basename "$logfile" .log | sed "s/^$name-//")" \
    "$(grep -oE 'Done [0-9]+ runs in [0-9]+' "$logfile" | awk '{print $5}' | tail -1)" \
    "$(grep -oE 'number_of_executed_units: +[0-9]+' "$logfile" | awk '{print $2}' | tail -1)" \
    "$(grep -oE 'average_exec_per_sec: +[0-9]+' "$logfile" | awk '{print $2}' | tail -1)" \
    "$(grep -oE 'cov: [0-9]+' <<<"$last" | awk '{print $2}')" "$(grep -oE 'ft: [0-9]+' <<<"$last" | awk '{print $2}')" \
    "$(grep -oE 'corp: [0-9]+/[0-9]+[a-zA-Z]*' <<<"$last" | awk '{print $2}')" \
    "$([[ $rc -eq 0 ]] && echo ok || grep -oE 'crash-[0-9a-f]+|timeout-[0-9a-f]+' "$logfile" | head -1)" \
    >>"$REPO/target/fuzz/summary.tsv"
done
exit $status
