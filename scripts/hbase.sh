#!/usr/bin/env bash
# A real, standalone HBase 2.x (HMaster + region server + embedded ZooKeeper in one JVM,
# data on the local filesystem) and its Thrift1 server (which happybase speaks).
#
#   scripts/hbase.sh fetch                 resolve the HBase jars with Maven into $SQUALL_HBASE_HOME/lib
#   scripts/hbase.sh start <thrift_port>   start both JVMs, wait until happybase can list tables,
#                                          print "run_dir=... master_pid=... thrift_pid=..."
#   scripts/hbase.sh stop [thrift_port]    stop the instance on that port (all instances without one)
#
# SQUALL_PYTHON is the interpreter that checks readiness with happybase (default: python3 on PATH; the
# tests pass the interpreter that runs them). SQUALL_HBASE_HOME defaults to <repo>/.cache/hbase. Each instance lives in a fresh temp dir
# (data, logs, pid files), recorded in $SQUALL_HBASE_HOME/instances/<thrift_port>.
# Other ports (ZooKeeper, master, region server) are chosen free; web UIs are off.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
HOME_DIR="${SQUALL_HBASE_HOME:-$REPO/.cache/hbase}"
START_TIMEOUT="${SQUALL_HBASE_START_TIMEOUT:-180}"
PYTHON="${SQUALL_PYTHON:-python3}"

die() { echo "hbase.sh: $*" >&2; exit 1; }

fetch() {
  command -v mvn >/dev/null || die "fetch: mvn not found; install Maven (apt-get install -y maven)"
  mkdir -p "$HOME_DIR"
  rm -rf "$HOME_DIR/lib.tmp"
  mvn -q -B -Dstyle.color=never -f "$HERE/hbase/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$HOME_DIR/lib.tmp"
  rm -rf "$HOME_DIR/lib" && mv "$HOME_DIR/lib.tmp" "$HOME_DIR/lib"
  echo "hbase.sh: $(ls "$HOME_DIR/lib" | wc -l) jars in $HOME_DIR/lib"
}

free_port() {
  "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

write_site() {  # write_site <run_dir> <zk_port>
  cat > "$1/conf/hbase-site.xml" <<XML
<?xml version="1.0"?>
<configuration>
  <property><name>hbase.cluster.distributed</name><value>false</value></property>
  <property><name>hbase.rootdir</name><value>file://$1/root</value></property>
  <property><name>hbase.tmp.dir</name><value>$1/tmp</value></property>
  <property><name>hbase.zookeeper.quorum</name><value>127.0.0.1</value></property>
  <property><name>hbase.zookeeper.property.clientPort</name><value>$2</value></property>
  <property><name>hbase.zookeeper.property.dataDir</name><value>$1/zk</value></property>
  <property><name>hbase.localcluster.assign.random.ports</name><value>true</value></property>
  <property><name>hbase.master.port</name><value>0</value></property>
  <property><name>hbase.regionserver.port</name><value>0</value></property>
  <property><name>hbase.master.info.port</name><value>-1</value></property>
  <property><name>hbase.regionserver.info.port</name><value>-1</value></property>
  <property><name>hbase.thrift.info.port</name><value>-1</value></property>
  <property><name>hbase.unsafe.stream.capability.enforce</name><value>false</value></property>
  <property><name>hbase.wal.provider</name><value>filesystem</value></property>
  <property><name>hbase.master.wait.on.regionservers.mintostart</name><value>1</value></property>
  <property><name>hbase.master.wait.on.regionservers.maxtostart</name><value>1</value></property>
  <property><name>hbase.master.wait.on.regionservers.timeout</name><value>500</value></property>
  <property><name>hbase.master.wait.on.regionservers.interval</name><value>100</value></property>
  <property><name>hbase.regionserver.handler.count</name><value>10</value></property>
  <property><name>hbase.client.retries.number</name><value>5</value></property>
  <property><name>hbase.client.pause</name><value>100</value></property>
  <property><name>hbase.thrift.minWorkerThreads</name><value>4</value></property>
</configuration>
XML
}

java_opts() {  # flags HBase's own bin/hbase uses on JDK 17, plus a quick-starting small JVM
  echo "-Xms128m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.net.preferIPv4Stack=true" \
    "-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true" \
    "--add-modules jdk.unsupported --add-opens java.base/java.nio=ALL-UNNAMED" \
    "--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang=ALL-UNNAMED" \
    "--add-opens java.base/jdk.internal.ref=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED" \
    "--add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED" \
    "--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/sun.net.dns=ALL-UNNAMED" \
    "--add-exports java.base/sun.net.util=ALL-UNNAMED --add-exports java.security.jgss/sun.security.krb5=ALL-UNNAMED" \
    "-Dlog4j2.configurationFile=$HERE/hbase/log4j2.properties"
}

wait_ready() {  # wait_ready <thrift_port> <run_dir>
  local deadline=$((SECONDS + START_TIMEOUT))
  until "$PYTHON" - "$1" <<'PY' 2>/dev/null
import sys, happybase
c = happybase.Connection("127.0.0.1", int(sys.argv[1]), timeout=10000, autoconnect=True)
c.tables()
c.close()
PY
  do
    for role in master thrift; do
      kill -0 "$(cat "$2/$role.pid")" 2>/dev/null || { tail -30 "$2/$role.log" >&2; die "start: the $role JVM exited; log: $2/$role.log"; }
    done
    [ $SECONDS -lt $deadline ] || die "start: HBase not ready after ${START_TIMEOUT}s; logs in $2"
    sleep 0.5
  done
}

start() {
  local port="${1:-}" run zk cp
  [[ "$port" =~ ^[0-9]+$ ]] || die "start: expected a Thrift port number; got '${port}' instead"
  [ -d "$HOME_DIR/lib" ] || die "start: no jars in $HOME_DIR/lib; run 'scripts/hbase.sh fetch' first"
  command -v java >/dev/null || die "start: java not found; install a JDK 17 (apt-get install -y openjdk-17-jre-headless)"
  "$PYTHON" -c 'import happybase' 2>/dev/null \
    || die "start: '$PYTHON' cannot import happybase, which checks that HBase is ready; set SQUALL_PYTHON to the interpreter that has it (pip install happybase)"
  [ ! -e "$HOME_DIR/instances/$port" ] || die "start: an instance is already recorded for port $port; run 'scripts/hbase.sh stop $port'"
  run="$(mktemp -d "${TMPDIR:-/tmp}/squall-hbase.XXXXXX")"
  mkdir -p "$run/conf" "$run/root" "$run/zk" "$run/tmp" "$HOME_DIR/instances"
  echo "$run" > "$HOME_DIR/instances/$port"
  zk="$(free_port)"
  write_site "$run" "$zk"
  cp="$run/conf:$HOME_DIR/lib/*"
  # shellcheck disable=SC2046
  nohup java $(java_opts) -cp "$cp" org.apache.hadoop.hbase.master.HMaster start >"$run/master.log" 2>&1 &
  echo $! > "$run/master.pid"
  # shellcheck disable=SC2046
  nohup java $(java_opts) -cp "$cp" org.apache.hadoop.hbase.thrift.ThriftServer -b 127.0.0.1 -p "$port" start \
    >"$run/thrift.log" 2>&1 &
  echo $! > "$run/thrift.pid"
  wait_ready "$port" "$run"
  echo "run_dir=$run master_pid=$(cat "$run/master.pid") thrift_pid=$(cat "$run/thrift.pid") zookeeper_port=$zk thrift_port=$port"
}

stop_one() {  # stop_one <thrift_port>
  local record="$HOME_DIR/instances/$1" run pid
  [ -f "$record" ] || die "stop: no instance recorded for port $1 in $HOME_DIR/instances"
  run="$(cat "$record")"
  for role in thrift master; do
    pid="$(cat "$run/$role.pid" 2>/dev/null || true)"
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for role in thrift master; do
    pid="$(cat "$run/$role.pid" 2>/dev/null || true)"
    for _ in $(seq 1 15); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done  # its data is thrown away
    [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$run" "$record"
  echo "hbase.sh: stopped the instance on port $1"
}

stop() {
  if [ -n "${1:-}" ]; then stop_one "$1"; return; fi
  for record in "$HOME_DIR"/instances/*; do [ -e "$record" ] && stop_one "$(basename "$record")"; done
  return 0
}

case "${1:-}" in
  fetch) fetch ;;
  start) start "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) die "expected one of: fetch, start <thrift_port>, stop [thrift_port]; got '${1:-}'" ;;
esac
