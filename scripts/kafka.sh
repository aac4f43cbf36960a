#!/usr/bin/env bash
# A real, single-node Apache Kafka 4.x in KRaft mode (broker and controller in one JVM, no ZooKeeper),
# and Spark's Kafka connector jars.
#
#   scripts/kafka.sh fetch               resolve the broker's jars with Maven into $SQUALL_KAFKA_HOME/lib
#   scripts/kafka.sh fetch-connector [version]
#                                        resolve spark-sql-kafka-0-10 for that Spark version and the dependencies
#                                        pyspark lacks into $SQUALL_SPARK_KAFKA_HOME/<version>/jars
#   scripts/kafka.sh connector-jars [version]
#                                        print those jars' paths, comma separated (for spark.jars / --jars)
#   scripts/kafka.sh connector-version   print the version the two commands above default to: the installed
#                                        pyspark's ($SQUALL_PYTHON, default python3, imports it), else the
#                                        version setup.py's tests extra pins (what `pip install -e ".[tests]"`
#                                        is about to install on a fresh machine)
#   scripts/kafka.sh start <port> [--sasl-port <port>] [--sasl-ssl-port <port> --tls <cert.pem> <key.pem>]
#                                        format a fresh log dir, start the broker on 127.0.0.1:<port>, wait
#                                        until it serves, print "run_dir=... pid=... port=... controller_port=...";
#                                        <port> is a PLAINTEXT listener; --sasl-port adds a SASL_PLAINTEXT one
#                                        and --sasl-ssl-port a SASL_SSL one (its certificate and unencrypted
#                                        PKCS#8 key given by --tls), both taking SCRAM-SHA-256 and SCRAM-SHA-512
#                                        (create users through the PLAINTEXT listener: AlterUserScramCredentials)
#   scripts/kafka.sh kill <port>         SIGKILL the broker on that port, keeping its data (a crash)
#   scripts/kafka.sh restart <port>      start that instance's broker again on its data, wait until it serves
#   scripts/kafka.sh stop [port]         stop the instance on that port (all instances without one)
#
# SQUALL_KAFKA_HOME defaults to <repo>/.cache/kafka, SQUALL_SPARK_KAFKA_HOME to <repo>/.cache/spark-kafka, which
# keeps one connector per Spark version (the connector must equal pyspark's version, and squall supports a range).
# Each instance lives in a fresh temp dir (config, data, log, pid file), recorded in
# $SQUALL_KAFKA_HOME/instances/<port>; its controller port is chosen free. Topics are created on first
# use with one partition; internal topics (offsets, transactions) have one replica, so transactions work.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/.." && pwd)"
HOME_DIR="${SQUALL_KAFKA_HOME:-$REPO/.cache/kafka}"
CONNECTOR_DIR="${SQUALL_SPARK_KAFKA_HOME:-$REPO/.cache/spark-kafka}"
START_TIMEOUT="${SQUALL_KAFKA_START_TIMEOUT:-120}"
PYTHON="${SQUALL_PYTHON:-python3}"

die() { echo "kafka.sh: $*" >&2; exit 1; }

resolve() {  # resolve <pom> <target dir> [mvn -D options]: copy the pom's runtime dependencies into <target dir>, atomically
  local pom="$1" target="$2"
  shift 2
  command -v mvn >/dev/null || die "fetch: mvn not found; install Maven (apt-get install -y maven)"
  mkdir -p "$(dirname "$target")"
  rm -rf "$target.tmp"
  if ! mvn -q -B -Dstyle.color=never -f "$pom" "$@" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$target.tmp"; then
    rm -rf "$target.tmp"
    rmdir "$(dirname "$target")" 2>/dev/null || true  # a version folder made for nothing
    die "fetch: Maven could not resolve the dependencies of $pom ${*:-} (its error is above)"
  fi
  rm -rf "$target" && mv "$target.tmp" "$target"
  echo "kafka.sh: $(ls "$target" | wc -l) jars in $target"
}

connector_version() {  # connector_version [version]: the given one, else the installed pyspark's, else setup.py's pin
  local version="${1:-}"
  if [ -z "$version" ]; then
    version="$("$PYTHON" -c 'import pyspark; print(pyspark.__version__)' 2>/dev/null)" \
      || version="$(sed -n 's/^PYSPARK_PINNED = "==\([0-9][0-9.]*\)".*/\1/p' "$REPO/setup.py")"
  fi
  [[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] \
    || die "no Spark version for the connector: expected one like 4.2.0 (an argument, or pyspark installed for '$PYTHON'); got '$version' instead"
  echo "$version"
}

fetch_connector() {  # fetch_connector [version]: spark-sql-kafka-0-10 of that version, into <home>/<version>/jars
  local version
  version="$(connector_version "${1:-}")"
  echo "kafka.sh: fetching Spark's Kafka connector $version"
  resolve "$HERE/spark-kafka/pom.xml" "$CONNECTOR_DIR/$version/jars" "-Dspark.version=$version"
}

connector_jars() {  # connector_jars [version]
  local version jars=()
  version="$(connector_version "${1:-}")"
  [ -d "$CONNECTOR_DIR/$version/jars" ] && jars=("$CONNECTOR_DIR/$version"/jars/*.jar)
  [ ${#jars[@]} -gt 0 ] && [ -e "${jars[0]}" ] \
    || die "connector-jars: no jars in $CONNECTOR_DIR/$version/jars; run 'scripts/kafka.sh fetch-connector $version' first"
  (IFS=,; echo "${jars[*]}")
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

cluster_id() {  # what 'kafka-storage.sh random-uuid' prints: 16 random bytes, URL-safe base64, no padding
  # Never starting with '-', as Kafka's Uuid.randomUuid draws again: the tool's argument parser would read
  # "-t -xyz" as a missing cluster id (1 start in 64 failed so).
  python3 -c 'import base64, uuid
while (cid := base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")).startswith("-"): pass
print(cid)'
}

write_config() {  # write_config <run_dir> <port> <controller_port> [sasl_port] [sasl_ssl_port]
  local listeners="PLAINTEXT://127.0.0.1:$2" protocols="CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT" name
  [ -z "${4:-}" ] || { listeners+=",SASL_PLAINTEXT://127.0.0.1:$4"; protocols+=",SASL_PLAINTEXT:SASL_PLAINTEXT"; }
  [ -z "${5:-}" ] || { listeners+=",SASL_SSL://127.0.0.1:$5"; protocols+=",SASL_SSL:SASL_SSL"; }
  cat > "$1/server.properties" <<PROPS
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@127.0.0.1:$3
listeners=$listeners,CONTROLLER://127.0.0.1:$3
advertised.listeners=$listeners
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=$protocols
log.dirs=$1/data
num.partitions=1
auto.create.topics.enable=true
num.network.threads=2
num.io.threads=2
background.threads=2
num.recovery.threads.per.data.dir=1
offsets.topic.replication.factor=1
offsets.topic.num.partitions=1
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
transaction.state.log.num.partitions=1
share.coordinator.state.topic.replication.factor=1
share.coordinator.state.topic.min.isr=1
group.initial.rebalance.delay.ms=0
log.retention.check.interval.ms=300000
# Test records carry CreateTime timestamps years old: time-based retention would delete them at
# the first retention check (30 s after start, then every check interval) while a test reads them.
log.retention.ms=-1
PROPS
  if [ -n "${4:-}${5:-}" ]; then
    echo "sasl.enabled.mechanisms=SCRAM-SHA-256,SCRAM-SHA-512" >> "$1/server.properties"
    for name in ${4:+sasl_plaintext} ${5:+sasl_ssl}; do
      # The broker's side of SCRAM: no credentials of its own; users are checked against the metadata log.
      for mechanism in scram-sha-256 scram-sha-512; do
        echo "listener.name.$name.$mechanism.sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required;"
      done >> "$1/server.properties"
    done
  fi
  if [ -n "${5:-}" ]; then
    cat >> "$1/server.properties" <<PROPS
listener.name.sasl_ssl.ssl.keystore.type=PEM
listener.name.sasl_ssl.ssl.keystore.location=$1/broker.pem
PROPS
  fi
}

java_opts() {  # a small, quick-starting JVM; logs as scripts/kafka/log4j2.properties says
  echo "-Xms128m -Xmx512m -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.net.preferIPv4Stack=true" \
    "-Djava.awt.headless=true -Dlog4j2.configurationFile=$HERE/kafka/log4j2.properties"
}

listening() {  # listening <port>: whether 127.0.0.1:<port> accepts a connection
  (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null
}

wait_ready() {  # wait_ready <port> <run_dir>
  local deadline=$((SECONDS + START_TIMEOUT))
  until grep -q "Kafka Server started" "$2/kafka.log" 2>/dev/null && listening "$1"; do
    kill -0 "$(cat "$2/kafka.pid")" 2>/dev/null || { tail -30 "$2/kafka.log" >&2; die "start: the broker JVM exited; log: $2/kafka.log"; }
    [ $SECONDS -lt $deadline ] || die "start: Kafka not ready after ${START_TIMEOUT}s; log in $2/kafka.log"
    sleep 0.2
  done
}

start() {
  local port="${1:-}" sasl="" sasl_ssl="" cert="" key="" run controller
  [[ "$port" =~ ^[0-9]+$ ]] || die "start: expected a port number; got '${port}' instead"
  shift
  while [ $# -gt 0 ]; do
    case "$1" in
      --sasl-port|--sasl-ssl-port) [ $# -ge 2 ] || die "start: $1 needs a port"
        if [ "$1" = --sasl-port ]; then sasl="$2"; else sasl_ssl="$2"; fi
        shift 2 ;;
      --tls) cert="${2:-}"; key="${3:-}"; shift 3 || die "start: --tls needs <cert.pem> <key.pem>" ;;
      *) die "start: unknown option '$1'; expected --sasl-port <port>, --sasl-ssl-port <port>, --tls <cert> <key>" ;;
    esac
  done
  for p in "$sasl" "$sasl_ssl"; do [[ -z "$p" || "$p" =~ ^[0-9]+$ ]] || die "start: expected a port number; got '$p'"; done
  [ -z "$sasl_ssl" ] || [ -f "$cert" -a -f "$key" ] || die "start: --sasl-ssl-port needs --tls <cert.pem> <key.pem> (files)"
  [ -d "$HOME_DIR/lib" ] || die "start: no jars in $HOME_DIR/lib; run 'scripts/kafka.sh fetch' first"
  command -v java >/dev/null || die "start: java not found; install a JDK 17 (apt-get install -y openjdk-17-jre-headless)"
  [ ! -e "$HOME_DIR/instances/$port" ] || die "start: an instance is already recorded for port $port; run 'scripts/kafka.sh stop $port'"
  run="$(mktemp -d "${TMPDIR:-/tmp}/squall-kafka.XXXXXX")"
  mkdir -p "$run/data" "$HOME_DIR/instances"
  echo "$run" > "$HOME_DIR/instances/$port"
  controller="$(free_port)"
  write_config "$run" "$port" "$controller" "$sasl" "$sasl_ssl"
  # A PEM keystore is one file: the private key (PKCS#8, unencrypted), then the certificate.
  [ -z "$sasl_ssl" ] || cat "$key" "$cert" > "$run/broker.pem"
  # shellcheck disable=SC2046
  java $(java_opts) -cp "$HOME_DIR/lib/*" kafka.tools.StorageTool format -t "$(cluster_id)" -c "$run/server.properties" \
    >"$run/format.log" 2>&1 || { cat "$run/format.log" >&2; die "start: formatting the log dir failed"; }
  launch "$run" "$port"
  echo "run_dir=$run pid=$(cat "$run/kafka.pid") port=$port controller_port=$controller"
}

launch() {  # launch <run_dir> <port>: start the broker of a formatted run dir, wait until it serves
  # shellcheck disable=SC2046
  nohup java $(java_opts) -cp "$HOME_DIR/lib/*" kafka.Kafka "$1/server.properties" >>"$1/kafka.log" 2>&1 &
  echo $! > "$1/kafka.pid"
  wait_ready "$2" "$1"
}

recorded() {  # recorded <port>: the run dir of the instance on that port
  [ -f "$HOME_DIR/instances/${1:-}" ] || die "no instance recorded for port '${1:-}' in $HOME_DIR/instances"
  cat "$HOME_DIR/instances/$1"
}

crash() {  # crash <port>: SIGKILL the broker, as a host losing power would; its data stays for restart
  local run pid
  run="$(recorded "${1:-}")"
  pid="$(cat "$run/kafka.pid")"
  [ -n "$pid" ] && kill -9 "$pid" 2>/dev/null || die "kill: the broker on port $1 (pid ${pid:-none}) is not running"
  : > "$run/kafka.pid"  # a pid the system may reuse: never signalled again by stop or restart
  local deadline=$((SECONDS + 30))
  # Gone, or a zombie nobody reaps (its ports are closed all the same).
  while kill -0 "$pid" 2>/dev/null && [ "$(awk '{print $3}' "/proc/$pid/stat" 2>/dev/null)" != Z ]; do
    [ $SECONDS -lt $deadline ] || die "kill: the broker on port $1 (pid $pid) is still running 30 s after SIGKILL"
    sleep 0.05
  done
  echo "kafka.sh: killed the broker on port $1 (pid $pid)"
}

restart() {  # restart <port>: the killed broker of that instance, started again on its data
  local run pid
  run="$(recorded "${1:-}")"
  pid="$(cat "$run/kafka.pid")"
  [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null || die "restart: the broker on port $1 is running"
  # wait_ready looks for the start line: only this start's may count.
  mv "$run/kafka.log" "$run/kafka.log.$(date +%s%N)"
  launch "$run" "$1"
  echo "kafka.sh: restarted the broker on port $1 (pid $(cat "$run/kafka.pid"))"
}

stop_one() {  # stop_one <port>
  local record="$HOME_DIR/instances/$1" run pid
  [ -f "$record" ] || die "stop: no instance recorded for port $1 in $HOME_DIR/instances"
  run="$(cat "$record")"
  pid="$(cat "$run/kafka.pid" 2>/dev/null || true)"
  if [ -n "$pid" ]; then
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.2; done  # its data is thrown away
    kill -9 "$pid" 2>/dev/null || true
  fi
  rm -rf "$run" "$record"
  echo "kafka.sh: stopped the instance on port $1"
}

stop() {
  if [ -n "${1:-}" ]; then stop_one "$1"; return; fi
  for record in "$HOME_DIR"/instances/*; do [ -e "$record" ] && stop_one "$(basename "$record")"; done
  return 0
}

case "${1:-}" in
  fetch) resolve "$HERE/kafka/pom.xml" "$HOME_DIR/lib" ;;
  fetch-connector) fetch_connector "${2:-}" ;;
  connector-jars) connector_jars "${2:-}" ;;
  connector-version) connector_version "${2:-}" ;;
  start) shift; start "$@" ;;
  kill) crash "${2:-}" ;;
  restart) restart "${2:-}" ;;
  stop) stop "${2:-}" ;;
  *) die "expected one of: fetch, fetch-connector [version], connector-jars [version], connector-version, start <port> [options], kill <port>, restart <port>, stop [port]; got '${1:-}'" ;;
esac
