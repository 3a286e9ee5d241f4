#!/usr/bin/env bash
# A real S3 server for the tests: a one-node Ceph cluster (monitor, memstore OSD, RADOS
# Gateway) on 127.0.0.1, checking SigV4 signatures like AWS does.
#
#   scripts/s3-server.sh setup        installs radosgw ceph-mon ceph-osd when missing, and
#                                     builds (once) a prepared cluster template under the cache
#   scripts/s3-server.sh start ROOT   a fresh copy of the template in ROOT on free loopback
#                                     ports (HTTP and HTTPS); writes ROOT/s3.env
#   scripts/s3-server.sh stop ROOT    stops the daemons started in ROOT (by their pid files)
#   scripts/s3-server.sh pause ROOT   stops them keeping their data; resume ROOT starts them
#                                     again on the same ports (a server that goes away)
#
# ROOT/s3.env is sourceable and exports:
#   NCZ_S3_ENDPOINT        http://127.0.0.1:PORT
#   NCZ_S3_HTTPS_ENDPOINT  https://127.0.0.1:PORT (the same server over TLS; netCDF-C's S3
#                          client always uses https)
#   NCZ_S3_ACCESS_KEY NCZ_S3_SECRET_KEY NCZ_S3_REGION   the test user's credentials
#   NCZ_S3_CA              PEM of the CA that signed the server's certificate (for 127.0.0.1
#                          and localhost)
#   NCZ_S3_ROOT            ROOT
#   NCZ_S3_AWS_DIR         holds .aws/config and .aws/credentials naming the test user as the
#                          default profile (for netCDF-C's NC_TEST_AWS_DIR)
#   NCZ_S3_NETCDF          a wrapper that runs a netCDF-C program against this server:
#                          "$NCZ_S3_NETCDF" ncdump "$NCZ_S3_HTTPS_ENDPOINT/bucket/key#mode=nczarr,s3"
#                          (credentials, region, and a preloaded library for the CA and a
#                          netCDF-C crash: scripts/s3-netcdf-preload.c); netCDF-C does not
#                          create buckets
#
# start reads NCZ_S3_MEMSTORE_BYTES (the server's capacity, all in RAM; default 2 GiB) and
# NCZ_S3_GC_SECONDS (deleted objects free their memory this long after; default 60).
#
# Several instances may run at once, each with its own ROOT. Nothing outside ROOT and the
# cache ($VOL_NCZARR_CACHE, default ~/.cache/vol-nczarr) is written, apart from the packages.
set -euo pipefail

CACHE="${VOL_NCZARR_CACHE:-$HOME/.cache/vol-nczarr}"
TEMPLATE="$CACHE/rgw-template"
LOCK="$CACHE/rgw-template.lock"
# Bump when the template's layout or contents change: an older template is rebuilt.
TEMPLATE_VERSION=5
ACCESS_KEY="NCZARRTESTACCESSKEY1"
SECRET_KEY="nczarrTestSecretKey0123456789abcdefghijk"
REGION="us-east-1"
FSID="6f1e5f0e-7a52-4c59-9d1e-3c2b8a0f5a11"
OSD_UUID="0b8d4b6e-3f8a-4f0e-8d53-2a7e9c1d4b22"
PACKAGES=(radosgw ceph-mon ceph-osd curl openssl iproute2 gcc libc6-dev libcurl4-openssl-dev)
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PRELOAD_SRC="$HERE/s3-netcdf-preload.c"
# seconds a start may take (the daemons, up to both ports answering)
START_TIMEOUT=${NCZ_S3_START_TIMEOUT:-60}
STOP_TIMEOUT=20

# The daemons and curl must not run under a sanitizer runtime that a test preloads for the
# connector (the gateway never comes up under ASan's): this script runs without it.
if [ -n "${LD_PRELOAD:-}" ]; then
  exec env -u LD_PRELOAD bash "${BASH_SOURCE[0]}" "$@"
fi

log() { echo "[s3-server] $*" >&2; }
die() { log "$*"; exit 1; }

ceph_version() { ceph-mon --version 2>/dev/null | awk '{print $3}'; }
stamp_text() {
  echo "version=$TEMPLATE_VERSION ceph=$(ceph_version) preload=$(sha256sum "$PRELOAD_SRC" | cut -c1-16)"
}

install_packages() {
  [ "${VOL_NCZARR_SKIP_APT:-0}" = 1 ] && return 0
  local missing=() p
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  log "installing Debian packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" = 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq </dev/null >&2
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" </dev/null >&2
}

# Three distinct free TCP ports on 127.0.0.1 (mon, HTTP, HTTPS), below Linux's ephemeral
# range (32768-60999) and above Ceph's OSD ports (6800-7300). A port can still be taken
# between this check and the daemon's bind: start_root checks that its daemons hold them.
pick_ports() {
  local ports=() p
  while [ ${#ports[@]} -lt 3 ]; do
    p=$((20000 + (RANDOM * 32768 + RANDOM) % 12700))
    case " ${ports[*]} " in *" $p "*) continue ;; esac
    [ -z "$(ss -Hltn "sport = :$p" 2>/dev/null)" ] || continue
    ports+=("$p")
  done
  echo "${ports[@]}"
}

# write_conf ROOT MONPORT HTTPPORT HTTPSPORT TLSDIR FASTSHUTDOWN
write_conf() {
  local r=$1
  cat >"$r/ceph.conf" <<EOF
[global]
fsid = $FSID
mon host = v2:127.0.0.1:$2
public addr = 127.0.0.1
cluster addr = 127.0.0.1
auth cluster required = none
auth service required = none
auth client required = none
ms bind msgr1 = false
# with authentication off, radosgw cannot reach the monitor when its mode list starts with
# "secure" (the default): "get_initial_auth_request returned -13" until it gives up
ms mon client mode = crc secure
# a port taken is reported at once (start_root then picks others), not after 10 s of retries
ms bind retry count = 1
run dir = $r/run
admin socket = $r/run/\$name.asok
pid file = $r/run/\$name.pid
log file = $r/log/\$name.log
keyring = $r/keyring
osd pool default size = 1
osd pool default min size = 1
osd pool default pg num = 8
osd pool default pgp num = 8
osd pool default pg autoscale mode = off
mon allow pool size one = true
mon warn on pool no redundancy = false
osd crush chooseleaf type = 0
mon max pg per osd = 1000
# the monitor refuses to run on a disk less than 5% free (the default), as a CI runner's
# can be; its store here is a few MB
mon data avail warn = 1
mon data avail crit = 0
[mon]
mon data = $r/mon
[osd]
osd data = $r/osd0
osd objectstore = memstore
# memstore writes its objects to osd data only on a slow (clean) shutdown: the template
# needs that, a test server whose data is thrown away does not
osd fast shutdown = $6
# a stopping OSD waits this long for the monitor's answer, which never comes when the
# monitor stops at the same time
osd mon shutdown timeout = 1
# memstore holds every object in RAM: this caps the server's memory (a benchmark of large
# stores raises it: NCZ_S3_MEMSTORE_BYTES)
memstore device bytes = ${NCZ_S3_MEMSTORE_BYTES:-2147483648}
[client.rgw]
rgw frontends = beast endpoint=127.0.0.1:$3 ssl_endpoint=127.0.0.1:$4 ssl_certificate=$5/server.pem ssl_private_key=$5/server.key tcp_nodelay=1
rgw data = $r/rgw
rgw dns name = localhost
# deleted objects free their memory this long after (NCZ_S3_GC_SECONDS)
rgw gc obj min wait = ${NCZ_S3_GC_SECONDS:-60}
rgw gc processor period = ${NCZ_S3_GC_SECONDS:-60}
# no lifecycle rules in the tests; its worker holds up the gateway's shutdown
rgw enable lc threads = false
EOF
}

# A CA and a server certificate for 127.0.0.1 and localhost, made once with the template.
make_tls() {
  local d=$1
  mkdir -p "$d"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 \
    -subj "/CN=vol-nczarr test CA" -keyout "$d/ca.key" -out "$d/ca.pem" \
    -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign" \
    >/dev/null 2>&1
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -subj "/CN=127.0.0.1" -keyout "$d/server.key" -out "$d/server.csr" >/dev/null 2>&1
  printf '%s\n' "basicConstraints=CA:FALSE" "keyUsage=critical,digitalSignature,keyEncipherment" \
    "extendedKeyUsage=serverAuth" "subjectAltName=IP:127.0.0.1,DNS:localhost" >"$d/server.ext"
  openssl x509 -req -in "$d/server.csr" -CA "$d/ca.pem" -CAkey "$d/ca.key" -CAcreateserial \
    -days 3650 -extfile "$d/server.ext" -out "$d/server.pem" >/dev/null 2>&1
  # The CA signs nothing else: its key is not kept.
  rm -f "$d/server.csr" "$d/server.ext" "$d/ca.srl" "$d/ca.key"
  openssl verify -CAfile "$d/ca.pem" "$d/server.pem" >/dev/null
}

# The daemons of ROOT, started in the background (each forks and writes its pid file).
launch() { # ROOT NAME COMMAND...
  local r=$1 n=$2
  shift 2
  "$@" </dev/null >>"$r/log/$n.out" 2>&1
}

# http_up URL: anything answers over HTTP(S) at URL.
http_up() { curl -s -o /dev/null -k --max-time 2 "$1" 2>/dev/null; }

# pid_of ROOT NAME: the pid in ROOT/run/NAME.pid when that process is one of ours (its
# command line names ROOT's ceph.conf), else nothing.
pid_of() {
  local f="$1/run/$2.pid" pid
  [ -f "$f" ] || return 0
  pid=$(tr -dc 0-9 <"$f")
  [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] || return 0
  tr '\0' '\n' <"/proc/$pid/cmdline" | grep -qxF -- "$1/ceph.conf" && echo "$pid"
  return 0
}

# holds_port PID PORT: PID listens on 127.0.0.1:PORT.
holds_port() { ss -Hltnp "sport = :$2" 2>/dev/null | grep -q "pid=$1,"; }

daemon_logs() {
  local f
  for f in "$1"/log/*; do
    [ -s "$f" ] || continue
    echo "---- tail of $f" >&2
    tail -n 25 "$f" >&2
  done
}

# alive PID: PID runs (a process that has exited stays a zombie until its parent reaps it,
# and kill -0 still finds a zombie).
alive() {
  local state
  state=$(sed -n 's/^State:[[:space:]]*\([A-Z]\).*/\1/p' "/proc/$1/status" 2>/dev/null) || return 1
  [ -n "$state" ] && [ "$state" != Z ] && [ "$state" != X ]
}

# stop_root ROOT [NAMES]: SIGTERM to each of ROOT's daemons at once (or to those NAMES),
# SIGKILL to any still there after STOP_TIMEOUT seconds.
stop_root() {
  local r=$1 n pid pids=() deadline names=${2:-"client.rgw osd.0 mon.a"}
  for n in $names; do
    pid=$(pid_of "$r" "$n")
    [ -n "$pid" ] || continue
    kill -TERM "$pid" 2>/dev/null || true
    pids+=("$pid")
  done
  deadline=$((SECONDS + STOP_TIMEOUT))
  for pid in ${pids[@]+"${pids[@]}"}; do
    while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
    if alive "$pid"; then
      log "process $pid did not stop in ${STOP_TIMEOUT}s: SIGKILL"
      kill -KILL "$pid" 2>/dev/null || true
      deadline=$((SECONDS + 5))
      while alive "$pid" && [ $SECONDS -lt $deadline ]; do sleep 0.05; done
    fi
  done
  for n in $names; do rm -f "$r/run/$n.pid"; done
}

# wait_for DEADLINE DESCRIPTION COMMAND...: polls COMMAND until it succeeds or time is up.
# wait_for_or DEADLINE DESCRIPTION GIVEUP COMMAND...: the same, but returns 2 as soon as the
# shell test GIVEUP holds.
wait_for() {
  local deadline=$1 what=$2
  shift 2
  wait_for_or "$deadline" "$what" false "$@"
}
wait_for_or() {
  local deadline=$1 what=$2 giveup=$3
  shift 3
  until "$@"; do
    ! eval "$giveup" || return 2
    [ $SECONDS -lt "$deadline" ] || { log "timed out waiting for $what"; return 1; }
    sleep 0.1
  done
}

daemons_hold_ports() { # ROOT MONPORT HTTPPORT HTTPSPORT
  local mon rgw
  mon=$(pid_of "$1" mon.a)
  rgw=$(pid_of "$1" client.rgw)
  [ -n "$mon" ] && [ -n "$rgw" ] && holds_port "$mon" "$2" && holds_port "$rgw" "$3" && holds_port "$rgw" "$4"
}

# s3 METHOD URL [curl args]: a request signed as the test user; fails on an HTTP error.
s3() {
  local m=$1 u=$2
  shift 2
  curl -sS --fail --max-time 30 -X "$m" --aws-sigv4 "aws:amz:$REGION:s3" \
    --user "$ACCESS_KEY:$SECRET_KEY" -H "x-amz-content-sha256: UNSIGNED-PAYLOAD" "$@" "$u"
}

make_pools() {
  local e=$1 upload
  s3 PUT "$e/template-bucket" &&
    s3 PUT "$e/template-bucket/object" --data-binary template &&
    upload=$(s3 POST "$e/template-bucket/multipart?uploads=" | sed -n 's:.*<UploadId>\(.*\)</UploadId>.*:\1:p') &&
    [ -n "$upload" ] &&
    s3 DELETE "$e/template-bucket/multipart?uploadId=$upload" &&
    s3 DELETE "$e/template-bucket/object" &&
    s3 DELETE "$e/template-bucket"
}

build_template() {
  local tmp="$TEMPLATE.tmp.$$" mon http https osdid t0=$SECONDS
  log "building the RGW template in $TEMPLATE (about 20 s)"
  # (what an interrupted build left; the caller holds the lock)
  rm -rf "$TEMPLATE".tmp.*
  mkdir -p "$tmp/cluster/run" "$tmp/cluster/log" "$tmp/cluster/mon" "$tmp/cluster/osd0" "$tmp/cluster/rgw"
  make_tls "$tmp/tls"
  # Built without the project's flags: the tools it is preloaded into are not sanitized.
  ${CC:-cc} -shared -fPIC -O2 -Wall -Wextra -Werror -o "$tmp/tls/netcdf-s3-preload.so" "$PRELOAD_SRC" -ldl \
    || die "could not build $PRELOAD_SRC"
  read -r mon http https <<<"$(pick_ports)"
  local r="$tmp/cluster"
  write_conf "$r" "$mon" "$http" "$https" "$tmp/tls" false
  # shellcheck disable=SC2064
  trap "stop_root '$r'; rm -rf '$tmp'" EXIT
  # Every step checks its own status: set -e does not hold inside a subshell whose status is
  # tested.
  if ! (
    monmaptool --create --add a "v2:127.0.0.1:$mon" --fsid "$FSID" "$r/monmap" >"$r/log/mkfs.out" 2>&1 || exit 1
    ceph-mon -c "$r/ceph.conf" --mkfs -i a --monmap "$r/monmap" >>"$r/log/mkfs.out" 2>&1 || exit 1
    rm -f "$r/monmap"
    launch "$r" mon ceph-mon -c "$r/ceph.conf" -i a || exit 1
    osdid=$(timeout 60 ceph -c "$r/ceph.conf" --connect-timeout 30 osd new "$OSD_UUID" 2>>"$r/log/mkfs.out")
    [ "$osdid" = 0 ] || { echo "ceph osd new gave '$osdid'" >>"$r/log/mkfs.out"; exit 1; }
    ceph-osd -c "$r/ceph.conf" -i 0 --mkfs --osd-uuid "$OSD_UUID" >>"$r/log/mkfs.out" 2>&1 || exit 1
    launch "$r" osd ceph-osd -c "$r/ceph.conf" -i 0 || exit 1
    launch "$r" rgw radosgw -c "$r/ceph.conf" -n client.rgw || exit 1
    wait_for $((SECONDS + START_TIMEOUT)) "the gateway on port $http" http_up "http://127.0.0.1:$http/" || exit 1
    timeout 60 radosgw-admin -c "$r/ceph.conf" user create --uid=test --display-name=test \
      --access-key="$ACCESS_KEY" --secret-key="$SECRET_KEY" >>"$r/log/mkfs.out" 2>&1 || exit 1
    # The first bucket, object and multipart upload create the gateway's data pools: done
    # here once, not in every test server.
    make_pools "http://127.0.0.1:$http" >>"$r/log/mkfs.out" 2>&1 || exit 1
  ); then
    daemon_logs "$r"
    stop_root "$r"
    trap - EXIT
    rm -rf "$tmp"
    die "building the template failed"
  fi
  # The OSD first, while the monitor runs: it has the monitor mark it down, so a copy of the
  # template starts with no stale OSD address in its map.
  stop_root "$r" "client.rgw osd.0"
  stop_root "$r"
  trap - EXIT
  rm -rf "$r/run" "$r/log" "$r/ceph.conf"
  stamp_text >"$tmp/stamp"
  rm -rf "$TEMPLATE"
  mv "$tmp" "$TEMPLATE"
  log "template ready in $((SECONDS - t0)) s"
}

template_current() {
  [ -f "$TEMPLATE/stamp" ] && [ "$(cat "$TEMPLATE/stamp")" = "$(stamp_text)" ]
}

# start_root ROOT: one attempt; on failure stops what it started and returns 2 when another
# process took one of the ports, else 1. The caller holds a lock on the template.
start_root() {
  local r=$1 mon http https
  read -r mon http https <<<"$(pick_ports)"
  local deadline=$((SECONDS + START_TIMEOUT))
  # Every step checks its own status: set -e does not hold in a function called from a
  # condition, as this one is.
  local rc=0
  (
    rm -rf "$r" && mkdir -p "$r/run" "$r/log" && : >"$r/.s3-server-root" || exit 1
    cp -a "$TEMPLATE/cluster/mon" "$TEMPLATE/cluster/osd0" "$TEMPLATE/cluster/rgw" "$r/" || exit 1
    cp -a "$TEMPLATE/tls" "$r/tls" || exit 1
    write_conf "$r" "$mon" "$http" "$https" "$r/tls" true || exit 1
    # The template's monitor map names the port it was built with: give it this one.
    ceph-mon -c "$r/ceph.conf" -i a --extract-monmap "$r/monmap" >"$r/log/monmap.out" 2>&1 || exit 1
    monmaptool --rm a "$r/monmap" >>"$r/log/monmap.out" 2>&1 || exit 1
    monmaptool --add a "v2:127.0.0.1:$mon" "$r/monmap" >>"$r/log/monmap.out" 2>&1 || exit 1
    ceph-mon -c "$r/ceph.conf" -i a --inject-monmap "$r/monmap" >>"$r/log/monmap.out" 2>&1 || exit 1
    rm -f "$r/monmap"
    launch "$r" mon ceph-mon -c "$r/ceph.conf" -i a || {
      grep -qs "Address already in use" "$r"/log/mon.* && exit 2
      exit 1
    }
    # The monitor must hold its port before anyone connects: with the same fsid, another
    # instance's monitor on that port would take our OSD in. A port taken since pick_ports
    # shows as a bind error: then start again on other ports.
    wait_for_or "$deadline" "the monitor on port $mon" 'grep -qs "Address already in use" "$r"/log/mon.*' \
      eval '[ -n "$(pid_of "$r" mon.a)" ] && holds_port "$(pid_of "$r" mon.a)" "$mon"' || exit $?
    launch "$r" osd ceph-osd -c "$r/ceph.conf" -i 0 || exit 1
    # The gateway starts once the OSD is up in the monitor's map: before, the map names the
    # address the OSD had in the template, and requests sent there stall for 10 s or more.
    wait_for "$deadline" "the OSD to boot" grep -q "state: booting -> active" "$r/log/osd.0.log" || exit 1
    launch "$r" rgw radosgw -c "$r/ceph.conf" -n client.rgw || exit 1
    wait_for_or "$deadline" "the gateway on ports $http and $https" \
      'grep -qs "failed to bind address" "$r/log/client.rgw.log" "$r/log/rgw.out"' \
      eval 'http_up "http://127.0.0.1:$http/" && http_up "https://127.0.0.1:$https/"' || exit $?
    daemons_hold_ports "$r" "$mon" "$http" "$https" || exit 2
  ) || rc=$?
  if [ $rc != 0 ]; then
    stop_root "$r"
    if [ $rc = 2 ]; then
      log "another process took one of the ports $mon $http $https"
    else
      daemon_logs "$r"
    fi
    return $rc
  fi
  mkdir -p "$r/aws/.aws"
  printf '[default]\nregion = %s\n' "$REGION" >"$r/aws/.aws/config"
  printf '[default]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$ACCESS_KEY" "$SECRET_KEY" \
    >"$r/aws/.aws/credentials"
  # netCDF-C's programs reach the server through this wrapper: an executable, so that it
  # composes with env prefixes (env -u ... LD_PRELOAD= "$NCZ_S3_NETCDF" ncdump ...).
  cat >"$r/netcdf-s3" <<EOF
#!/bin/sh
# netcdf-s3 PROGRAM [ARGS]: a netCDF-C program (ncdump, ncgen, nccopy...) against the test
# S3 server in $r. netCDF-C takes the default profile of NC_TEST_AWS_DIR/.aws (the test
# user) before any AWS_* variable; the preloaded library gives its libcurl the test CA and
# works around a crash (scripts/s3-netcdf-preload.c).
exec env -u AWS_PROFILE -u AWS_CONFIG_FILE -u AWS_SHARED_CREDENTIALS_FILE -u AWS_SESSION_TOKEN \\
  AWS_ACCESS_KEY_ID='$ACCESS_KEY' AWS_SECRET_ACCESS_KEY='$SECRET_KEY' \\
  AWS_REGION='$REGION' AWS_DEFAULT_REGION='$REGION' NC_TEST_AWS_DIR='$r/aws' NCZ_S3_CA='$r/tls/ca.pem' \\
  LD_PRELOAD="\${LD_PRELOAD:+\$LD_PRELOAD }$r/tls/netcdf-s3-preload.so" "\$@"
EOF
  chmod +x "$r/netcdf-s3"
  cat >"$r/s3.env.tmp" <<EOF
export NCZ_S3_ROOT='$r'
export NCZ_S3_ENDPOINT='http://127.0.0.1:$http'
export NCZ_S3_HTTPS_ENDPOINT='https://127.0.0.1:$https'
export NCZ_S3_ACCESS_KEY='$ACCESS_KEY'
export NCZ_S3_SECRET_KEY='$SECRET_KEY'
export NCZ_S3_REGION='$REGION'
export NCZ_S3_CA='$r/tls/ca.pem'
export NCZ_S3_AWS_DIR='$r/aws'
export NCZ_S3_NETCDF='$r/netcdf-s3'
EOF
  mv "$r/s3.env.tmp" "$r/s3.env"
  log "S3 server in $r: http://127.0.0.1:$http https://127.0.0.1:$https (monitor $mon)"
}

# cmd_setup [noprobe]: with noprobe (from start), a current template is taken as it is.
cmd_setup() {
  install_packages
  mkdir -p "$CACHE"
  exec 9>"$LOCK"
  flock -x 9
  if template_current && [ "${1:-}" = noprobe ]; then
    return 0
  fi
  if template_current; then
    # Reused when it still starts; rebuilt when it does not.
    local probe="$CACHE/rgw-probe.$$"
    if start_root "$probe" 2>"$CACHE/rgw-probe.log"; then
      stop_root "$probe"
      rm -rf "$probe"
      log "template is current: $TEMPLATE"
      return 0
    fi
    stop_root "$probe"
    rm -rf "$probe"
    log "the template did not start (see $CACHE/rgw-probe.log): rebuilding it"
  fi
  build_template
}

cmd_start() {
  local r=$1 attempt rc
  mkdir -p "$(dirname "$r")"
  r=$(cd "$(dirname "$r")" && pwd -P)/$(basename "$r")
  # ROOT is emptied: only a new directory or one an earlier start made.
  if [ -d "$r" ] && [ -n "$(ls -A "$r")" ] && [ ! -f "$r/.s3-server-root" ]; then
    die "$r exists and is not a directory this script made: give a new one"
  fi
  # A server still running there from an earlier run goes first.
  stop_root "$r"
  mkdir -p "$CACHE"
  if ! template_current; then
    (cmd_setup noprobe)
  fi
  exec 9>"$LOCK"
  flock -s 9
  template_current || die "no usable template in $TEMPLATE"
  # Interrupted half way (a test's timeout, ^C), it stops what it started.
  START_ROOT=$r
  trap 'stop_root "$START_ROOT"; exit 130' INT
  trap 'stop_root "$START_ROOT"; exit 143' TERM
  for attempt in 1 2 3; do
    rc=0
    start_root "$r" || rc=$?
    [ $rc = 0 ] && return 0
    [ $rc = 2 ] || break
    log "start attempt $attempt lost a port to another process: again on other ports"
  done
  # The logs stay for a look; the copy of the cluster goes.
  rm -rf "$r/mon" "$r/osd0" "$r/rgw"
  die "the S3 server did not start in $r"
}

cmd_stop() {
  local r=$1
  [ -d "$r" ] || return 0
  r=$(cd "$r" && pwd -P)
  stop_root "$r"
  # Each start copies the template afresh: the data of this run is not kept.
  rm -rf "$r/s3.env" "$r/netcdf-s3" "$r/mon" "$r/osd0" "$r/rgw" "$r/aws"
}

# cmd_pause ROOT: stops the daemons and keeps their data (memstore saves on a clean stop),
# for a test of a server that goes away in the middle of a write; cmd_resume starts them
# again on the same ports with that data.
cmd_pause() {
  local r=$1
  [ -f "$r/s3.env" ] || die "$r: no server started there"
  r=$(cd "$r" && pwd -P)
  # Test servers stop fast, dropping memstore's data: this one must keep it.
  sed -i 's/^osd fast shutdown = .*/osd fast shutdown = false/' "$r/ceph.conf"
  timeout 30 ceph -c "$r/ceph.conf" --connect-timeout 10 tell osd.0 config set osd_fast_shutdown false \
    >>"$r/log/pause.out" 2>&1 || die "$r: could not make the OSD keep its data"
  stop_root "$r"
}

cmd_resume() {
  local r mon http https booted
  r=$(cd "$1" && pwd -P)
  [ -f "$r/s3.env" ] && [ -f "$r/ceph.conf" ] || die "$r: no paused server there"
  mon=$(sed -n 's/^mon host = v2:127.0.0.1:\([0-9]*\).*/\1/p' "$r/ceph.conf")
  http=$(sed -n 's/^rgw frontends = beast endpoint=127.0.0.1:\([0-9]*\).*/\1/p' "$r/ceph.conf")
  https=$(sed -n 's/.* ssl_endpoint=127.0.0.1:\([0-9]*\).*/\1/p' "$r/ceph.conf")
  [ -n "$mon" ] && [ -n "$http" ] && [ -n "$https" ] || die "$r/ceph.conf: ports not found"
  local deadline=$((SECONDS + START_TIMEOUT))
  booted=$(grep -c "state: booting -> active" "$r/log/osd.0.log" 2>/dev/null || true)
  if ! (
    launch "$r" mon ceph-mon -c "$r/ceph.conf" -i a || exit 1
    wait_for "$deadline" "the monitor on port $mon" \
      eval '[ -n "$(pid_of "$r" mon.a)" ] && holds_port "$(pid_of "$r" mon.a)" "$mon"' || exit 1
    launch "$r" osd ceph-osd -c "$r/ceph.conf" -i 0 || exit 1
    wait_for "$deadline" "the OSD to boot" \
      eval '[ "$(grep -c "state: booting -> active" "$r/log/osd.0.log")" -gt "${booted:-0}" ]' || exit 1
    launch "$r" rgw radosgw -c "$r/ceph.conf" -n client.rgw || exit 1
    wait_for "$deadline" "the gateway on ports $http and $https" \
      eval 'http_up "http://127.0.0.1:$http/" && http_up "https://127.0.0.1:$https/"' || exit 1
  ); then
    daemon_logs "$r"
    stop_root "$r"
    die "the S3 server in $r did not start again"
  fi
  log "S3 server in $r running again: http://127.0.0.1:$http https://127.0.0.1:$https"
}

case "${1:-}" in
  setup) cmd_setup ;;
  start) [ $# -eq 2 ] || die "usage: $0 start ROOT"; cmd_start "$2" ;;
  stop) [ $# -eq 2 ] || die "usage: $0 stop ROOT"; cmd_stop "$2" ;;
  pause) [ $# -eq 2 ] || die "usage: $0 pause ROOT"; cmd_pause "$2" ;;
  resume) [ $# -eq 2 ] || die "usage: $0 resume ROOT"; cmd_resume "$2" ;;
  *) die "usage: $0 setup | start ROOT | stop ROOT | pause ROOT | resume ROOT" ;;
esac
