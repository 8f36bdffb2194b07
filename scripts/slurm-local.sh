#!/usr/bin/env bash
# A real single-node SLURM cluster on this machine, for trying profiles/slurm and for
# tests/emulator/test_slurm.py. Debian packages only, no network beyond localhost.
#
#   scripts/slurm-local.sh [start]   install what is missing, configure, start, wait for idle
#   scripts/slurm-local.sh stop      stop every daemon this script started
#   scripts/slurm-local.sh status    exit 0 if the cluster is up (node idle/mixed/allocated)
#
# What runs (all on 127.0.0.1, all as root, state under $MOBIFRAG_SLURM_STATE):
#   munged      authentication between the daemons and the clients (Debian's key)
#   mariadbd    a private instance (own datadir, socket, TCP port $MOBIFRAG_SLURM_DB_PORT)
#               holding the accounting database, so that `sacct` lists finished jobs
#   slurmdbd    the accounting daemon in front of that database
#   slurmctld   the controller; slurmd the one compute node (cores and memory from
#               `slurmd -C`), partition `local` (the default)
# The configuration goes to /etc/slurm/slurm.conf and /etc/slurm/slurmdbd.conf (where
# the clients look for it); a file there that this script did not write is never touched.
# Every step checks before it acts, so running `start` again is cheap and changes nothing.
set -euo pipefail

STATE=${MOBIFRAG_SLURM_STATE:-/var/lib/mobifrag-slurm}
DB_PORT=${MOBIFRAG_SLURM_DB_PORT:-6830}
CLUSTER=mobifrag
PARTITION=local
CONF_DIR=/etc/slurm
SLURM_CONF_FILE=$CONF_DIR/slurm.conf
DBD_CONF_FILE=$CONF_DIR/slurmdbd.conf
MARKER="# written by mobifrag scripts/slurm-local.sh"
DB_SOCKET=$STATE/mysql-run/mysqld.sock
PACKAGES=(slurm-wlm slurmdbd munge mariadb-server)

say() { echo "slurm-local: $*"; }
die() {
    echo "slurm-local: $*" >&2
    exit 1
}

# True if the pid file names a live process whose command is $2.
running() {
    local pidfile=$1 name=$2 pid
    [[ -s $pidfile ]] || return 1
    pid=$(<"$pidfile")
    [[ -r /proc/$pid/comm ]] && [[ $(<"/proc/$pid/comm") == "$name" ]]
}

# Wait up to $1 seconds for the command that follows to succeed.
wait_for() {
    local seconds=$1
    shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        ((SECONDS < deadline)) || return 1
        sleep 1
    done
}

install_packages() {
    local tool missing=0
    for tool in slurmctld slurmd slurmdbd sinfo sacct sacctmgr munged mariadbd mariadb-install-db; do
        command -v "$tool" >/dev/null || missing=1
    done
    ((missing)) || return 0
    say "installing ${PACKAGES[*]}"
    # The packages' maintainer scripts would start the system's own munge, mariadb and
    # slurm services; this script runs its own instances, so keep those stopped.
    local policy=/usr/sbin/policy-rc.d own_policy=0
    if [[ ! -e $policy ]]; then
        printf '#!/bin/sh\nexit 101\n' >"$policy"
        chmod 755 "$policy"
        own_policy=1
        trap 'rm -f /usr/sbin/policy-rc.d' EXIT
    fi
    local status=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${PACKAGES[@]}" ||
        { apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends "${PACKAGES[@]}"; } || status=$?
    if ((own_policy)); then
        rm -f "$policy"
        trap - EXIT
    fi
    ((status == 0)) || die "apt-get install ${PACKAGES[*]} failed"
}

# Refuse to overwrite a slurm configuration that someone else wrote.
check_ours() {
    local file=$1
    if [[ -e $file ]] && ! grep -qF "$MARKER" "$file"; then
        die "$file exists and was not written by this script; move it away to use a local test cluster"
    fi
}

start_munge() {
    if munge -n </dev/null 2>/dev/null | unmunge >/dev/null 2>&1; then
        return 0
    fi
    if [[ ! -s /etc/munge/munge.key ]]; then
        say "creating /etc/munge/munge.key"
        mungekey --create --keyfile=/etc/munge/munge.key
        chown munge:munge /etc/munge/munge.key
        chmod 600 /etc/munge/munge.key
    fi
    install -d -o munge -g munge -m 755 /run/munge
    install -d -o munge -g munge -m 700 /var/lib/munge /var/log/munge
    say "starting munged"
    runuser -u munge -- /usr/sbin/munged </dev/null >/dev/null 2>&1
    touch "$STATE/munged.ours"
    wait_for 10 sh -c 'munge -n </dev/null | unmunge' || die "munged did not start (see /var/log/munge/munged.log)"
}

db_sql() {
    mariadb --no-defaults --socket="$DB_SOCKET" -u root "$@"
}

start_mariadb() {
    local datadir=$STATE/mysql
    install -d -o mysql -g mysql -m 750 "$datadir" "$STATE/mysql-run"
    if [[ ! -d $datadir/mysql ]]; then
        say "initialising the accounting database in $datadir"
        mariadb-install-db --no-defaults --user=mysql --datadir="$datadir" \
            --auth-root-authentication-method=socket --skip-test-db \
            >"$STATE/log/mariadb-install.log" 2>&1 ||
            die "mariadb-install-db failed, see $STATE/log/mariadb-install.log"
    fi
    if ! running "$STATE/mysql-run/mysqld.pid" mariadbd; then
        say "starting mariadbd (127.0.0.1:$DB_PORT)"
        setsid mariadbd --no-defaults --user=mysql --datadir="$datadir" \
            --socket="$DB_SOCKET" --pid-file="$STATE/mysql-run/mysqld.pid" \
            --bind-address=127.0.0.1 --port="$DB_PORT" --skip-name-resolve \
            --log-error="$STATE/log/mariadbd.log" --innodb-buffer-pool-size=64M \
            </dev/null >/dev/null 2>&1 &
        wait_for 60 db_sql -e "SELECT 1" || die "mariadbd did not start, see $STATE/log/mariadbd.log"
    fi
    if [[ ! -s $STATE/db.pass ]]; then
        (umask 077 && head -c 18 /dev/urandom | base64 | tr -d '/+=' >"$STATE/db.pass")
    fi
    local pass
    pass=$(<"$STATE/db.pass")
    db_sql <<SQL
CREATE DATABASE IF NOT EXISTS slurm_acct_db;
CREATE USER IF NOT EXISTS 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
ALTER USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$pass';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
SQL
}

# Write $2 to $1 if it differs; return 0 if the file changed.
write_if_changed() {
    local file=$1 content=$2
    if [[ -e $file ]] && [[ $(<"$file") == "$content" ]]; then
        return 1
    fi
    printf '%s\n' "$content" >"$file"
    return 0
}

write_configs() {
    local node cpus sockets cores threads memory
    node=$(hostname -s)
    # `slurmd -C` prints this machine's node line, e.g.
    # NodeName=vm CPUs=2 Boards=1 SocketsPerBoard=1 CoresPerSocket=2 ThreadsPerCore=1 RealMemory=24105
    local probe
    probe=$(slurmd -C | head -1)
    cpus=$(sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' <<<"$probe")
    sockets=$(sed -n 's/.*SocketsPerBoard=\([0-9]*\).*/\1/p' <<<"$probe")
    cores=$(sed -n 's/.*CoresPerSocket=\([0-9]*\).*/\1/p' <<<"$probe")
    threads=$(sed -n 's/.*ThreadsPerCore=\([0-9]*\).*/\1/p' <<<"$probe")
    memory=$(sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' <<<"$probe")
    [[ -n $cpus && -n $memory ]] || die "could not read CPUs and RealMemory from 'slurmd -C': $probe"

    local slurm_conf dbd_conf changed=0
    slurm_conf="$MARKER
# Single-node test cluster on $node; re-run the script after changing it by hand.
ClusterName=$CLUSTER
SlurmctldHost=$node(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/run/slurmctld.pid
SlurmdPidFile=$STATE/run/slurmd.pid
SlurmctldLogFile=$STATE/log/slurmctld.log
SlurmdLogFile=$STATE/log/slurmd.log
# No cgroups (they may not be delegated inside a container): processes are tracked
# through /proc; task/affinity pins each job to the cores it was given, so nproc
# in a job reports its allocation as on a real cluster.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/affinity
JobAcctGatherType=jobacct_gather/linux
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
DefMemPerCPU=1024
# Reject at submission a job no node can run (rather than leave it pending forever).
EnforcePartLimits=ALL
ReturnToService=2
MinJobAge=300
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoreFlags=job_comment
JobCompType=jobcomp/none
NodeName=$node NodeAddr=127.0.0.1 CPUs=$cpus SocketsPerBoard=${sockets:-1} CoresPerSocket=${cores:-$cpus} ThreadsPerCore=${threads:-1} RealMemory=$memory State=UNKNOWN
PartitionName=$PARTITION Nodes=$node Default=YES MaxTime=INFINITE MaxCPUsPerNode=$cpus State=UP"

    dbd_conf="$MARKER
DbdHost=localhost
DbdAddr=127.0.0.1
SlurmUser=root
AuthType=auth/munge
PidFile=$STATE/run/slurmdbd.pid
LogFile=$STATE/log/slurmdbd.log
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$DB_PORT
StorageUser=slurm
StoragePass=$(<"$STATE/db.pass")
StorageLoc=slurm_acct_db"

    mkdir -p "$CONF_DIR"
    if write_if_changed "$SLURM_CONF_FILE" "$slurm_conf"; then changed=1; fi
    (umask 077 && write_if_changed "$DBD_CONF_FILE" "$dbd_conf") && changed=1
    chmod 600 "$DBD_CONF_FILE"
    if ((changed)); then
        say "wrote $SLURM_CONF_FILE and $DBD_CONF_FILE ($cpus CPUs, $memory MB)"
        # Daemons running with the old configuration restart below.
        stop_daemon slurmd "$STATE/run/slurmd.pid"
        stop_daemon slurmctld "$STATE/run/slurmctld.pid"
        stop_daemon slurmdbd "$STATE/run/slurmdbd.pid"
    fi
}

stop_daemon() {
    local name=$1 pidfile=$2 pid
    running "$pidfile" "$name" || return 0
    pid=$(<"$pidfile")
    say "stopping $name"
    kill "$pid"
    wait_for 30 sh -c "! kill -0 $pid 2>/dev/null" || die "$name did not stop"
}

start_slurm() {
    if ! running "$STATE/run/slurmdbd.pid" slurmdbd; then
        say "starting slurmdbd"
        slurmdbd </dev/null >/dev/null 2>&1
    fi
    wait_for 60 sacctmgr -n list cluster || die "slurmdbd does not answer, see $STATE/log/slurmdbd.log"
    if [[ -z $(sacctmgr -n -P list cluster "$CLUSTER" format=cluster) ]]; then
        sacctmgr -i add cluster "$CLUSTER" >/dev/null
    fi
    if ! running "$STATE/run/slurmctld.pid" slurmctld; then
        say "starting slurmctld"
        slurmctld </dev/null >/dev/null 2>&1
    fi
    wait_for 60 scontrol ping || die "slurmctld does not answer, see $STATE/log/slurmctld.log"
    if ! running "$STATE/run/slurmd.pid" slurmd; then
        say "starting slurmd"
        slurmd </dev/null >/dev/null 2>&1
    fi
}

node_state() {
    sinfo -h -N -o %t 2>/dev/null | head -1
}

node_up() {
    [[ $(node_state) =~ ^(idle|mix|alloc)$ ]]
}

start() {
    [[ $(id -u) == 0 ]] || die "must run as root (it installs packages and starts daemons)"
    install_packages
    check_ours "$SLURM_CONF_FILE"
    check_ours "$DBD_CONF_FILE"
    mkdir -p "$STATE"/{log,run,slurmctld,slurmd}
    start_munge
    start_mariadb
    write_configs
    start_slurm
    if ! wait_for 60 node_up; then
        # A node left down by an earlier unclean stop comes back on request.
        scontrol update nodename="$(hostname -s)" state=resume >/dev/null 2>&1 || true
        wait_for 30 node_up || die "node is '$(node_state)', not idle; see $STATE/log/slurmd.log"
    fi
    say "up: partition $PARTITION, node $(hostname -s) $(node_state); sacct lists finished jobs"
}

stop() {
    [[ $(id -u) == 0 ]] || die "must run as root"
    stop_daemon slurmd "$STATE/run/slurmd.pid"
    stop_daemon slurmctld "$STATE/run/slurmctld.pid"
    stop_daemon slurmdbd "$STATE/run/slurmdbd.pid"
    if running "$STATE/mysql-run/mysqld.pid" mariadbd; then
        say "stopping mariadbd"
        local pid
        pid=$(<"$STATE/mysql-run/mysqld.pid")
        db_sql -e "SHUTDOWN" >/dev/null 2>&1 || kill "$pid"
        wait_for 60 sh -c "! kill -0 $pid 2>/dev/null" || die "mariadbd did not stop"
    fi
    if [[ -e $STATE/munged.ours ]]; then
        stop_daemon munged /run/munge/munged.pid
        rm -f "$STATE/munged.ours"
    fi
    say "stopped"
}

status() {
    # Without its configuration file a SLURM client looks the controller up in DNS.
    [[ -e $SLURM_CONF_FILE ]] || return 1
    command -v sinfo >/dev/null || return 1
    node_up || return 1
    echo "slurm-local: up ($(node_state))"
}

case ${1:-start} in
start) start ;;
stop) stop ;;
status) status ;;
*) die "usage: $0 [start|stop|status]" ;;
esac
