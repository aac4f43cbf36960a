#!/usr/bin/env bash
# Everything the state backends need on a fresh Debian machine: redis-server (Debian's
# package), a JDK 17 and Maven, and the HBase jars (scripts/hbase.sh fetch).
# Idempotent: installed packages and fetched jars are kept. Run as root (or via sudo).
set -euo pipefail
cd "$(dirname "$0")/.."
export DEBIAN_FRONTEND=noninteractive

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

need=()
command -v redis-server >/dev/null || need+=(redis-server)
command -v openssl >/dev/null || need+=(openssl)
command -v java >/dev/null || need+=(openjdk-17-jre-headless)
command -v mvn >/dev/null || need+=(maven)
if [ ${#need[@]} -gt 0 ]; then
  $SUDO apt-get update -q
  $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi
# The Debian package starts a system-wide redis-server on port 6379; the tests start their own.

HOME_DIR="${SQUALL_HBASE_HOME:-$PWD/.cache/hbase}"
if [ -d "$HOME_DIR/lib" ] && [ "$HOME_DIR/lib" -nt scripts/hbase/pom.xml ]; then
  echo "install_services: HBase jars already in $HOME_DIR/lib"
else
  bash scripts/hbase.sh fetch
fi

# Kafka: the broker's jars (the tests start a single-node KRaft broker from them) and Spark's Kafka
# connector (spark.jars of a session that reads Kafka), both resolved by Maven. The connector must equal
# pyspark's version: the installed pyspark's, or on a fresh machine the version setup.py's tests extra pins
# (scripts/kafka.sh connector-version); each version is cached in a folder of its own.
KAFKA_HOME_DIR="${SQUALL_KAFKA_HOME:-$PWD/.cache/kafka}"
if [ -d "$KAFKA_HOME_DIR/lib" ] && [ "$KAFKA_HOME_DIR/lib" -nt scripts/kafka/pom.xml ]; then
  echo "install_services: Kafka jars already in $KAFKA_HOME_DIR/lib"
else
  bash scripts/kafka.sh fetch
fi
SPARK_VERSION="$(bash scripts/kafka.sh connector-version)"
CONNECTOR_JARS="${SQUALL_SPARK_KAFKA_HOME:-$PWD/.cache/spark-kafka}/$SPARK_VERSION/jars"
if [ -d "$CONNECTOR_JARS" ] && [ "$CONNECTOR_JARS" -nt scripts/spark-kafka/pom.xml ]; then
  echo "install_services: Spark's Kafka connector $SPARK_VERSION already in $CONNECTOR_JARS"
else
  bash scripts/kafka.sh fetch-connector "$SPARK_VERSION"
fi

# Delta Lake's jars (delta-spark and delta-storage, for the pinned Spark; see scripts/delta/pom.xml): the Delta
# TableSink tests give them to their sessions as spark.jars.
DELTA_JARS="${SQUALL_DELTA_HOME:-$PWD/.cache/delta}/jars"
if [ -d "$DELTA_JARS" ] && [ "$DELTA_JARS" -nt scripts/delta/pom.xml ]; then
  echo "install_services: Delta jars already in $DELTA_JARS"
else
  mvn -q -f scripts/delta/pom.xml dependency:copy-dependencies -DincludeArtifactIds=delta-spark_2.13,delta-storage \
    -DoutputDirectory="$DELTA_JARS"
fi
