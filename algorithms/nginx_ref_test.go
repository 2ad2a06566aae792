package algorithms

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// This file replays random keyed traces through a real nginx (Debian's
// nginx-light) whose clock is libfaketime's, frozen and stepped to each
// request's time, and compares every decision with NginxLimitReq's.
//
// nginx runs with limit_req_dry_run on: the zones are looked up and charged
// exactly as without it, but every request is served (a static file, since
// `return` would run before limit_req), with $limit_req_status (PASSED,
// DELAYED_DRY_RUN, REJECTED_DRY_RUN) in a response header and, for a
// delay, the excess and zone in the error log, from which the delay is
// computed as nginx computes it. The test starts servers, so it runs only
// when RATELIMIT_LAB_NGINX names nginx (.ci/nginx.sh installs nginx-light
// and faketime and sets it, and RATELIMIT_LAB_LIBFAKETIME); with CI=true
// a missing one fails the test.

type nginxRefCase struct {
	name  string
	specs string // the lab's spec; its zones become the location's limit_req
	keys  int    // distinct keys per column
	long  bool   // some keys of 60 bytes (256-byte states)
	n     int
	// From request longFrom on, a third of the keys are long: a zone full
	// of 128-byte states then cannot allocate a 256-byte one.
	longFrom int
}

var nginxRefCases = []nginxRefCase{
	{"burst-delay", "nginx-limit-req:rate=5r/s,burst=3,zone=1m", 6, false, 600, 0},
	{"nodelay", "nginx-limit-req:rate=2r/s,burst=4,nodelay=true,zone=1m", 5, false, 600, 0},
	{"delay-2", "nginx-limit-req:rate=3r/s,burst=5,delay=2,zone=1m", 4, false, 500, 0},
	{"burst-zero", "nginx-limit-req:rate=3r/s", 3, false, 500, 0},
	{"per-minute", "nginx-limit-req:rate=40r/m,burst=2,zone=1m", 4, false, 400, 0},
	{"tiny-zone", "nginx-limit-req:rate=1r/s,burst=1,nodelay=true,zone=32k", 400, true, 1500, 0},
	{"zone-full", "nginx-limit-req:rate=1r/s,burst=2,zone=32k", 600, false, 1500, 700},
	{"two-zones", "nginx-limit-req:rate=4r/s,burst=2,zone=32k+nginx-limit-req:rate=2r/s,burst=3,zone=1m,key=ip", 250, false, 1200, 0},
}

// nginxBinaries finds nginx and libfaketime, or fails (CI) or skips.
func nginxBinaries(t *testing.T) (nginx, faketime string) {
	t.Helper()
	nginx = os.Getenv("RATELIMIT_LAB_NGINX")
	if nginx == "" {
		if os.Getenv("CI") == "true" {
			t.Fatal("nginx conformance needs RATELIMIT_LAB_NGINX; .ci/nginx.sh installs nginx-light and faketime and sets it")
		}
		t.Skip("nginx conformance starts nginx servers: set RATELIMIT_LAB_NGINX=/usr/sbin/nginx (apt-get install nginx-light faketime), or run .ci/run")
	}
	faketime = os.Getenv("RATELIMIT_LAB_LIBFAKETIME")
	if faketime == "" {
		matches, _ := filepath.Glob("/usr/lib/*/faketime/libfaketime.so.1")
		if len(matches) > 0 {
			faketime = matches[0]
		}
	}
	for _, f := range []string{nginx, faketime} {
		if _, err := os.Stat(f); f == "" || err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("nginx conformance needs nginx-light and faketime (missing %q); .ci/nginx.sh installs them", f)
			}
			t.Skipf("nginx conformance: %q missing (apt-get install nginx-light faketime, or run .ci/run)", f)
		}
	}
	return nginx, faketime
}

// nginxServer is one nginx process under faketime.
type nginxServer struct {
	dir, clock string
	port       int
	cmd        *exec.Cmd
	client     *http.Client
	base       time.Time
}

func startNginx(t *testing.T, nginx, faketime string, l *NginxLimitReq) *nginxServer {
	t.Helper()
	dir := t.TempDir()
	s := &nginxServer{dir: dir, clock: filepath.Join(dir, "clock"),
		base: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	os.MkdirAll(filepath.Join(dir, "www"), 0o755)
	os.MkdirAll(filepath.Join(dir, "logs"), 0o755)
	os.WriteFile(filepath.Join(dir, "www", "index.html"), []byte("ok\n"), 0o644)
	s.setClock(t, 0)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.port = ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	var zones, limits strings.Builder
	for i, c := range l.Configs() {
		arg := "k"
		if c.Key == "ip" {
			arg = "j"
		}
		fmt.Fprintf(&zones, "    limit_req_zone $arg_%s zone=z%d:%s rate=%s;\n", arg, i, formatSize(c.Zone), formatNginxRate(c.Rate))
		fmt.Fprintf(&limits, "            limit_req zone=z%d", i)
		if c.Burst > 0 {
			fmt.Fprintf(&limits, " burst=%d", c.Burst)
		}
		if c.NoDelay {
			limits.WriteString(" nodelay")
		} else if c.Delay > 0 {
			fmt.Fprintf(&limits, " delay=%d", c.Delay)
		}
		limits.WriteString(";\n")
	}
	conf := fmt.Sprintf(`daemon off;
master_process off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/logs/error.log info;
env LD_PRELOAD;
env FAKETIME_TIMESTAMP_FILE;
env FAKETIME_NO_CACHE;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/tmp;
    proxy_temp_path %[1]s/tmp;
    fastcgi_temp_path %[1]s/tmp;
    uwsgi_temp_path %[1]s/tmp;
    scgi_temp_path %[1]s/tmp;
%[2]s    server {
        listen 127.0.0.1:%[3]d;
        location / {
            root %[1]s/www;
            limit_req_dry_run on;
%[4]s            add_header X-Limit-Req $limit_req_status always;
        }
    }
}
`, dir, zones.String(), s.port, limits.String())
	confPath := filepath.Join(dir, "nginx.conf")
	os.WriteFile(confPath, []byte(conf), 0o644)
	s.cmd = exec.Command(nginx, "-p", dir, "-c", confPath, "-e", filepath.Join(dir, "logs", "error.log"))
	s.cmd.Env = append(os.Environ(), "LD_PRELOAD="+faketime, "FAKETIME_TIMESTAMP_FILE="+s.clock, "FAKETIME_NO_CACHE=1")
	var stderr strings.Builder
	s.cmd.Stderr = &stderr
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		s.cmd.Process.Kill()
		<-exited
	})
	// No client timeout and no deadline on the start: on a busy machine
	// nginx may take any time; a server that never answers runs into go
	// test's -timeout. Until it listens, a dial is refused at once; the
	// loop ends when nginx listens or exits.
	s.client = &http.Client{}
	for {
		c, err := net.Dial("tcp", fmt.Sprintf("127.0.0.1:%d", s.port))
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-exited:
			log, _ := os.ReadFile(filepath.Join(dir, "logs", "error.log"))
			t.Fatalf("nginx exited without listening on %d: %s %s", s.port, stderr.String(), log)
		case <-time.After(10 * time.Millisecond):
		}
	}
	return s
}

// setClock freezes nginx's clock at base + at (whole milliseconds). The
// clock is set half a millisecond later: libfaketime reads the fraction
// with atof, and .139 would become 138.999… ms, which nginx truncates.
func (s *nginxServer) setClock(t *testing.T, at time.Duration) {
	ts := s.base.Add(at + 500*time.Microsecond).Format("2006-01-02 15:04:05.000000")
	if err := os.WriteFile(s.clock+".tmp", []byte(ts+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(s.clock+".tmp", s.clock); err != nil {
		t.Fatal(err)
	}
}

// get sends one request with keys k (zone key) and j (ip) and returns
// $limit_req_status.
func (s *nginxServer) get(t *testing.T, k, j string) string {
	url := fmt.Sprintf("http://127.0.0.1:%d/index.html?", s.port)
	if k != "" {
		url += "k=" + k + "&"
	}
	if j != "" {
		url += "j=" + j
	}
	resp, err := s.client.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.Header.Get("X-Limit-Req")
}

var delayLine = regexp.MustCompile(`delaying request, dry run, excess: (\d+)\.(\d{3}), by zone "z(\d+)"`)

// delays reads the delays nginx computed, in request order, from the
// error log: (excess − delay)·1000/rate of the zone named.
func (s *nginxServer) delays(t *testing.T, l *NginxLimitReq) []time.Duration {
	f, err := os.Open(filepath.Join(s.dir, "logs", "error.log"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []time.Duration
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := delayLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		whole, _ := strconv.ParseInt(m[1], 10, 64)
		frac, _ := strconv.ParseInt(m[2], 10, 64)
		z, _ := strconv.Atoi(m[3])
		zone := l.zones[z]
		out = append(out, time.Duration((whole*1000+frac-zone.delay)*1000/zone.rate)*time.Millisecond)
	}
	return out
}

func TestNginxReference(t *testing.T) {
	nginx, faketime := nginxBinaries(t)
	total := 0
	for ci, c := range nginxRefCases {
		t.Run(c.name, func(t *testing.T) {
			lim := mustNew(t, c.specs, 0).(*NginxLimitReq)
			srv := startNginx(t, nginx, faketime, lim)
			names := map[int32]string{}
			req := 0
			keyName := func(col, i int) (int32, string) {
				if i < 0 {
					return NoKey, ""
				}
				n := fmt.Sprintf("%c%d", "kj"[col], i)
				if (c.long && i%50 == 7) || (c.longFrom > 0 && req >= c.longFrom && i%3 == 0) {
					n += strings.Repeat("L", 58)
				}
				id := int32(col*100000 + i)
				if len(n) > 10 {
					id += 50000
				}
				names[id] = n
				return id, n
			}
			lim.BindKeyNames(func(id int32) string { return names[id] })
			if len(lim.zones) == 2 {
				lim.BindKeyColumns([]int{0, 1})
			}
			rng := rand.New(rand.NewPCG(uint64(ci), 15))
			at := 100 * time.Second
			var want []Decision
			var got []string
			for i := 0; i < c.n; i++ {
				req = i
				switch x := rng.IntN(100); {
				case x < 25: // the same millisecond
				case x < 27 && c.longFrom == 0:
					at += time.Duration(55+rng.IntN(20)) * time.Second // idle: states may expire
				case x < 29:
					at -= time.Duration(rng.IntN(70_000)) * time.Millisecond // a step back
					at = max(at, time.Second)
				default:
					at += time.Duration(rng.IntN(700)) * time.Millisecond
				}
				pick := func() int {
					if rng.IntN(40) == 0 {
						return -1 // empty key
					}
					if rng.IntN(3) == 0 {
						return rng.IntN(c.keys) // the tail: many keys
					}
					return rng.IntN(min(c.keys, 4)) // a few hot keys
				}
				r := Request{Keys: [MaxKeyColumns]int32{NoKey, NoKey, NoKey, NoKey}, Cost: 1}
				var k, j string
				r.Keys[0], k = keyName(0, pick())
				if len(lim.zones) == 2 {
					r.Keys[1], j = keyName(1, pick())
				}
				want = append(want, lim.DecideRequest(at, &r))
				srv.setClock(t, at)
				got = append(got, srv.get(t, k, j))
			}
			delays := srv.delays(t, lim)
			di := 0
			for i, w := range want {
				var g Decision
				switch got[i] {
				case "", "PASSED":
					g = Decision{Pass: true}
				case "DELAYED_DRY_RUN":
					if di < len(delays) {
						g = Decision{Pass: true, Wait: delays[di]}
					}
					di++
				case "REJECTED_DRY_RUN":
				default:
					t.Fatalf("request %d: status %q", i, got[i])
				}
				if g != w {
					t.Fatalf("request %d: nginx %s %+v, the lab %+v", i, got[i], g, w)
				}
			}
			f := lim.KeyFigures()
			t.Logf("%d decisions identical (%d evictions, %d alloc failures)", len(want), f.Evictions, f.AllocFailures)
			total += len(want)
		})
	}
	t.Logf("%d decisions identical to nginx", total)
}
