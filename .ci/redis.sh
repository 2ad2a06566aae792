# Sourced by .ci/run: start a throw-away redis-server for the Redis tests.
# It installs redis-server with apt-get when it is missing (CI runs as
# root), starts it on a free loopback port with persistence off, waits
# until it answers PING, exports RATELIMIT_LAB_REDIS_URL (the tests then
# run against it as well as against the embedded server) and stops it by
# its pid when the calling script exits.

start_redis() {
  if ! command -v redis-server >/dev/null || ! command -v redis-cli >/dev/null; then
    echo "installing redis-server"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq redis-server >/dev/null
  fi
  local port
  for port in $(shuf -i 20000-60000 -n 50); do
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      break
    fi
  done
  REDIS_DIR=$(mktemp -d)
  redis-server --port "$port" --bind 127.0.0.1 --save '' --appendonly no --daemonize no \
    --dir "$REDIS_DIR" --logfile "$REDIS_DIR/redis.log" &
  REDIS_PID=$!
  trap stop_redis EXIT
  local i
  for i in $(seq 1 100); do
    if [ "$(redis-cli -p "$port" ping 2>/dev/null)" = "PONG" ]; then
      export RATELIMIT_LAB_REDIS_URL="redis://127.0.0.1:$port/0"
      echo "redis-server $(redis-server --version | awk '{print $3}') on port $port (pid $REDIS_PID)"
      return 0
    fi
    if ! kill -0 "$REDIS_PID" 2>/dev/null; then
      break
    fi
    sleep 0.1
  done
  echo "redis-server did not answer PING on port $port:"; cat "$REDIS_DIR/redis.log"
  return 1
}

stop_redis() {
  if [ -n "${REDIS_PID:-}" ]; then
    kill "$REDIS_PID" 2>/dev/null || true
    wait "$REDIS_PID" 2>/dev/null || true
    REDIS_PID=
  fi
  [ -n "${REDIS_DIR:-}" ] && rm -rf "$REDIS_DIR"
}
