#!/usr/bin/env bash
# tests/slurm/run.sh -- `chipsim sweep --backend slurm` against a real Slurm.
#
# Starts a one-node cluster on this machine: munged, slurmctld and slurmd from Debian's
# slurm-wlm and munge (installed here when missing), with a configuration generated in a
# temporary directory (loopback addresses, free ports, state, spool, logs and the munge socket
# all in that directory, accounting off so the backend's scontrol fallback is what answers).
# Then:
#   1. a sweep of 7 small runs (one of which fails) submitted with --no-wait, collected by a
#      second invocation, must give exactly the database of the same sweep run locally (every
#      column but wall and finish times); a third invocation must submit nothing;
#   2. a sweep of 4 runs of about 3 s: one array task is cancelled while it runs; the sweep
#      records it as lost (CANCELLED) and stores the 3 others; the re-run submits that one run
#      only, leaves the others untouched, and ends with the local backend's database;
#   3. `chipsim study --backend slurm` on a small study file stores exactly what the local
#      study stores and writes the summary.
# The daemons are shut down on exit. Skipped (exit 0, with a message) only when the machine
# cannot run them at all: not root and no password-less sudo.
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
BIN=$(realpath "${CHIPSIM_BIN:-bin/chipsim}")
PASSED=0

say() { echo "slurm test: $*"; }
pass() { PASSED=$((PASSED + 1)); }
fail() {
    say "FAIL: $*" >&2
    echo "slurm: $PASSED passed, 1 failed"
    exit 1
}
check() { # check DESCRIPTION COMMAND...
    local what=$1
    shift
    if "$@"; then pass; else fail "$what"; fi
}

SUDO=
if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
        SUDO="sudo -n"
    else
        say "SKIPPED: the Slurm daemons need root, and this user is not root and has no" \
            "password-less sudo"
        exit 0
    fi
fi

# ---- Slurm and munge ------------------------------------------------------------------------

if ! command -v slurmctld >/dev/null || ! command -v slurmd >/dev/null ||
    ! command -v sbatch >/dev/null || ! command -v munged >/dev/null; then
    say "installing slurm-wlm and munge"
    bash scripts/install-deps.sh --if-missing --slurm # waits for other apt runs, retries
fi

T=$(mktemp -d /tmp/chipsim-slurm.XXXXXX)
chmod 755 "$T"
mkdir -p "$T/munge-key" "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/work"
chmod 700 "$T/munge-key"
export SLURM_CONF=$T/slurm.conf

stop() {
    local rc=$?
    set +e
    if [ -f "$T/slurmctld.pid" ]; then
        timeout 10 scontrol shutdown >/dev/null 2>&1
    fi
    for p in slurmctld slurmd munged; do
        local f=$T/$p.pid
        [ -f "$f" ] || continue
        local pid
        pid=$(cat "$f")
        [ $p = munged ] && $SUDO kill "$pid" 2>/dev/null # scontrol shutdown stopped the others
        for _ in $(seq 50); do
            $SUDO kill -0 "$pid" 2>/dev/null || break
            sleep 0.1
        done
        $SUDO kill -9 "$pid" 2>/dev/null
    done
    $SUDO rm -rf "$T"
    exit $rc
}
trap stop EXIT

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

dd if=/dev/urandom of="$T/munge-key/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge-key/munge.key"
# the daemons detach; their start-up messages go to files, so that they hold no pipe of make's
$SUDO munged --force --socket="$T/munge/munge.socket" --key-file="$T/munge-key/munge.key" \
    --pid-file="$T/munged.pid" --log-file="$T/log/munged.log" --seed-file="$T/munge/seed" \
    </dev/null >"$T/log/munged.start" 2>&1 || { cat "$T/log/munged.start" >&2; fail "munged"; }

CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/ { print int($2 / 1024 * 0.9) }' /proc/meminfo)
cat >"$SLURM_CONF" <<EOF
# one-node cluster for tests/slurm/run.sh; generated, loopback only
ClusterName=chipsimtest
SlurmctldHost=localhost(127.0.0.1)
SlurmctldPort=$(free_port)
SlurmdPort=$(free_port)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
AuthInfo=socket=$T/munge/munge.socket
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
MpiDefault=none
ReturnToService=2
MinJobAge=300
KillWait=2
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=INFINITE State=UP
EOF

for d in slurmctld "slurmd -N localhost"; do
    # shellcheck disable=SC2086 # $d is a command and its arguments
    $SUDO env SLURM_CONF="$SLURM_CONF" $d -f "$SLURM_CONF" </dev/null >"$T/log/${d%% *}.start" 2>&1 ||
        { cat "$T/log/${d%% *}.start" >&2; fail "${d%% *} did not start"; }
done
for i in $(seq 60); do
    [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ] && break
    [ "$i" = 60 ] && { tail -n 20 "$T"/log/*.log >&2; fail "the node never became idle"; }
    sleep 0.5
done
say "one-node cluster up ($CPUS CPUs, $SLURM_CONF)"

# ---- helpers ---------------------------------------------------------------------------------

# Every row of table runs without the wall and finish times, in key order.
dump() {
    python3 - "$1" <<'EOF'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
cur = db.execute("SELECT * FROM runs ORDER BY key")
names = [d[0] for d in cur.description]
for row in cur:
    print(repr([(n, v) for n, v in zip(names, row) if n not in ("wall_s", "finished")]))
EOF
}
sql() { python3 -c 'import sqlite3, sys
for r in sqlite3.connect(sys.argv[1]).execute(sys.argv[2]): print("|".join(map(str, r)))' "$1" "$2"; }
has() { grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; return 1; }; }
same_db() { diff <(dump "$1") <(dump "$2") >&2; }

W=$T/work
cd "$W"
CONFIG=$ROOT/configs/tiny.ini

# ---- 1. collect after --no-wait; equal to the local backend ------------------------------------

cat >a.ini <<EOF
[sweep]
configs = $CONFIG
small = true
[matrix main]
workloads = square, vecadd, color
schemes = viper, hmg
[matrix bad]
workloads = stream
chiplets = 1
set = workload.target=remote
EOF

set +e
"$BIN" sweep a.ini --db local-a.db --jobs 2 2>local-a.err
check "the local sweep: exit 3 (one run fails)" [ $? = 3 ]
"$BIN" sweep a.ini --backend slurm --db a.db --no-wait --poll 1 2>a1.err
check "--no-wait: exit 0" [ $? = 0 ]
check "--no-wait submits 7 runs as one array" has a1.err "submitted 7 runs as Slurm job"
check "--no-wait leaves runs in the queue" has a1.err "in Slurm's queue (the same command collects them)"
"$BIN" sweep a.ini --backend slurm --db a.db --poll 1 2>a2.err
check "collecting: exit 3 (one run fails)" [ $? = 3 ]
set -e
check "collecting submits nothing" has a2.err "0 to submit"
check "collecting stores every run" has a2.err "7 runs: 0 stored before, 7 run now, 1 failed"
check "one job array in all" [ "$(sql a.db 'SELECT count(*) FROM slurm_jobs')" = 1 ]
check "the Slurm database equals the local one" same_db local-a.db a.db
check "the failure is stored with its error" \
    [ "$(sql a.db "SELECT exit_code FROM runs WHERE status = 'failed' AND error LIKE '%needs at least 2 chiplets%'")" = 2 ]
set +e
"$BIN" sweep a.ini --backend slurm --db a.db --poll 1 2>a3.err
check "a third invocation: exit 0" [ $? = 0 ]
set -e
check "a third invocation runs nothing" has a3.err "7 runs: 7 stored before, 0 run now, 0 failed"
check "a third invocation submits nothing" [ "$(sql a.db 'SELECT count(*) FROM slurm_jobs')" = 1 ]
check "no result file is left behind" [ ! -e a.db.slurm/results ]
say "1. --no-wait, collection and equality with the local backend: ok"

# ---- 2. a task killed while it runs ------------------------------------------------------------

cat >b.ini <<EOF
[sweep]
configs = $CONFIG
workloads = square
schemes = viper, hmg, ideal, cpelide
[workload square]
n = 262144
iterations = 40
EOF

"$BIN" sweep b.ini --db local-b.db --jobs 2 2>local-b.err
: >b1.err # before the sweep starts, so that the poll below can read it at once
"$BIN" sweep b.ini --backend slurm --db b.db --poll 1 --max-parallel 2 2>b1.err &
SWEEP=$!
JOB=
for _ in $(seq 200); do
    JOB=$(sed -n 's/.*submitted 4 runs as Slurm job \([0-9]*\).*/\1/p' b1.err)
    [ -n "$JOB" ] && break
    sleep 0.1
done
check "the sweep submits 4 runs" [ -n "$JOB" ]
TASK=
for _ in $(seq 300); do
    TASK=$(squeue -h -r -j "$JOB" -t RUNNING -o %K 2>/dev/null | head -n 1)
    [ -n "$TASK" ] && break
    sleep 0.1
done
check "a task starts running" [ -n "$TASK" ]
sleep 0.5
scancel "${JOB}_$TASK"
set +e
wait $SWEEP
check "a sweep with a lost task: exit 3" [ $? = 3 ]
set -e
check "the lost task is reported with its Slurm state" has b1.err "ended CANCELLED"
check "the other 3 runs are stored" [ "$(sql b.db 'SELECT count(*) FROM runs')" = 3 ]
LOST_KEY=$(sql b.db "SELECT key FROM slurm_tasks WHERE result = 'lost' AND slurm_state = 'CANCELLED' AND task = $TASK")
check "the lost task is recorded in slurm_tasks" [ -n "$LOST_KEY" ]
check "the lost run is not in runs" [ "$(sql b.db "SELECT count(*) FROM runs WHERE key = '$LOST_KEY'")" = 0 ]
sql b.db "SELECT key, finished FROM runs ORDER BY key" >before
set +e
"$BIN" sweep b.ini --backend slurm --db b.db --poll 1 2>b2.err
check "the re-run: exit 0" [ $? = 0 ]
set -e
check "the re-run submits only the missing run" has b2.err "3 stored already, 0 collected now, 0 in Slurm's queue, 1 to submit"
check "the re-run's array has one task" has b2.err "submitted 1 run as Slurm job"
check "the re-run runs exactly one run" has b2.err "4 runs: 3 stored before, 1 run now, 0 failed"
check "the stored runs are untouched" [ "$(sql b.db "SELECT key, finished FROM runs WHERE key != '$LOST_KEY' ORDER BY key")" = "$(cat before)" ]
check "the database equals the local one" same_db local-b.db b.db
check "no duplicate rows" [ "$(sql b.db 'SELECT count(*) - count(DISTINCT key) FROM runs')" = 0 ]
check "the database is intact" [ "$(sql b.db 'PRAGMA integrity_check')" = ok ]
say "2. a cancelled task is recorded and only its run is submitted again: ok"

# ---- 3. a study on Slurm ------------------------------------------------------------------------

cat >s.ini <<EOF
[sweep]
configs = $CONFIG
workloads = square, vecadd
small = true
[matrix schemes]
schemes = viper, cpelide, hmg
chiplets = 2
[workload square]
l2.size_kib = 32
EOF
set +e
"$BIN" study cpelide --file s.ini --out st-local --jobs 2 -q >st-local.out 2>st-local.err
check "the local study: exit 0" [ $? = 0 ]
"$BIN" study cpelide --file s.ini --out st --backend slurm --poll 1 >st.out 2>st.err
check "the study on Slurm: exit 0" [ $? = 0 ]
set -e
check "the study submits its 6 runs as one array" has st.err "submitted 6 runs as Slurm job"
check "the study on Slurm equals the local one" same_db st-local/results.db st/results.db
check "the study writes its summary" has st/summary.txt "chipsim study: 6 runs stored, 0 failed"
say "3. a study on Slurm stores what the local study does and writes its summary: ok"

echo "slurm: $PASSED passed, 0 failed"
