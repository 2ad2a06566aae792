# Sourced by .ci/run: nginx-light and libfaketime for the nginx conformance
# test (algorithms/nginx_ref_test.go). It installs both with apt-get when
# missing (CI runs as root), then starts nginx once under a frozen fake
# clock on a free loopback port, checks that it serves and that the clock
# is the fake one, and stops it by its pid. It exports RATELIMIT_LAB_NGINX
# and RATELIMIT_LAB_LIBFAKETIME; the test starts its own servers with them
# (each trace needs fresh zones) and fails when CI=true and they are
# missing.

start_nginx() {
  if ! [ -x /usr/sbin/nginx ] || ! ls /usr/lib/*/faketime/libfaketime.so.1 >/dev/null 2>&1; then
    echo "installing nginx-light and faketime"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light faketime >/dev/null
  fi
  local lib
  lib=$(ls /usr/lib/*/faketime/libfaketime.so.1 | head -n1)
  local dir
  dir=$(mktemp -d)
  mkdir -p "$dir/www" "$dir/logs"
  echo ok > "$dir/www/index.html"
  echo "2024-01-01 00:00:00.000500" > "$dir/clock"
  local port attempt pid ok=
  for attempt in 1 2 3 4 5; do
    for port in $(shuf -i 20000-60000 -n 50); do
      if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
        break
      fi
    done
  cat > "$dir/nginx.conf" <<CONF
daemon off;
master_process off;
pid $dir/nginx.pid;
error_log $dir/logs/error.log info;
env LD_PRELOAD;
env FAKETIME_TIMESTAMP_FILE;
env FAKETIME_NO_CACHE;
events { worker_connections 16; }
http {
    access_log off;
    client_body_temp_path $dir/tmp;
    limit_req_zone \$arg_k zone=z:32k rate=1r/s;
    server {
        listen 127.0.0.1:$port;
        location / { root $dir/www; limit_req zone=z; add_header X-Date \$time_iso8601 always; }
    }
}
CONF
  LD_PRELOAD="$lib" FAKETIME_TIMESTAMP_FILE="$dir/clock" FAKETIME_NO_CACHE=1 \
    /usr/sbin/nginx -p "$dir" -c "$dir/nginx.conf" -e "$dir/logs/error.log" &
  pid=$!
  local i
  for i in $(seq 1 100); do
    if curl -s -D - -o /dev/null "http://127.0.0.1:$port/index.html?k=a" 2>/dev/null | grep -q '^X-Date: 2024-01-01T00:00:00'; then
      ok=1
      break
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  [ -n "$ok" ] && break
  done # another port when this one could not be bound
  if [ -z "$ok" ]; then
    echo "nginx under faketime did not answer on port $port with the fake date:"; cat "$dir/logs/error.log"
    rm -rf "$dir"
    return 1
  fi
  rm -rf "$dir"
  export RATELIMIT_LAB_NGINX=/usr/sbin/nginx RATELIMIT_LAB_LIBFAKETIME="$lib"
  echo "nginx $(/usr/sbin/nginx -v 2>&1 | sed 's/.*nginx\///') under libfaketime ($lib) answered on port $port (pid $pid, stopped)"
}
