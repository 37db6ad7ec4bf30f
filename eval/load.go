package eval

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/sqlite"
)

// ServerLoadOptions configures a run of the server under concurrent clients.
type ServerLoadOptions struct {
	Corpus []Conversation
	// Messages in the store (default 100,000), laid out as for the bench
	// (threads of 600 messages, ten a tenant).
	Messages int
	// Clients are the concurrency levels (default 1, 8 and 32); Requests
	// how many compiles each level runs (default 400).
	Clients  []int
	Requests int
	Budget   int
	// Serve starts the server on the database at path, listening on a
	// loopback address it prints on its standard error as
	// "on http://ADDR"; the run measures that process's CPU and memory.
	Serve    func(path string) *exec.Cmd
	TempDir  string
	Progress func(step string)
}

// ServerLoadReport holds a load run's results.
type ServerLoadReport struct {
	Messages int               `json:"messages"`
	Budget   int               `json:"budget"`
	Levels   []ServerLoadLevel `json:"levels"`
	// RSS of the server process, KiB: after opening the store, and idle
	// after every level (Compiles compilations, whose traces it keeps).
	RSSStartKiB int `json:"rss_start_kib"`
	RSSIdleKiB  int `json:"rss_idle_kib"`
	Compiles    int `json:"compiles"`
	// TraceBytes is the mean size of a kept trace as GET /v1/traces/{id}
	// returns it (JSON), over the traces read.
	TraceBytes int `json:"trace_bytes"`
}

// ServerLoadLevel is one concurrency level: per route, the requests, their
// throughput and latency; the server's CPU time per compile.
type ServerLoadLevel struct {
	Clients       int                  `json:"clients"`
	Seconds       float64              `json:"seconds"`
	Routes        map[string]RouteLoad `json:"routes"`
	CPUPerCompile float64              `json:"cpu_ms_per_compile"`
	Mixed         bool                 `json:"mixed,omitempty"`
}

// RouteLoad is one route's share of a level.
type RouteLoad struct {
	Requests  int         `json:"requests"`
	PerSecond float64     `json:"per_second"`
	Latency   Percentiles `json:"latency_ms"`
}

// RunLoad builds a store, starts the server on it and runs each level of
// concurrent clients against it on loopback: compiles only (each for one
// thread of one tenant, the tenant's key), then at the middle level a
// mix (an append of one message after every fifth compile and a read of
// each compile's trace).
func RunLoad(ctx context.Context, opt ServerLoadOptions) (*ServerLoadReport, error) {
	opt.Messages = cmpOr(opt.Messages, 100_000)
	opt.Requests = cmpOr(opt.Requests, 400)
	opt.Budget = cmpOr(opt.Budget, 2000)
	if len(opt.Clients) == 0 {
		opt.Clients = []int{1, 8, 32}
	}
	if opt.Progress == nil {
		opt.Progress = func(string) {}
	}
	texts, queries := corpus(opt.Corpus)
	if len(texts) == 0 || len(queries) == 0 {
		return nil, tenure.Errorf(tenure.CodeInvalid, "data", "the corpus has no turns or no questions")
	}
	dir, err := os.MkdirTemp(opt.TempDir, "tenure-load-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "tenure.db")
	l := newLayout(texts, opt.Messages, 600, 10)
	opt.Progress(fmt.Sprintf("store of %d messages", opt.Messages))
	keys, err := loadStore(ctx, path, l)
	if err != nil {
		return nil, err
	}
	opt.Progress("server")
	srv, err := startServer(ctx, opt.Serve(path))
	if err != nil {
		return nil, err
	}
	defer srv.stop()
	rep := &ServerLoadReport{Messages: opt.Messages, Budget: opt.Budget}
	rep.RSSStartKiB, _ = srv.rss()
	levels := make([]ServerLoadLevel, 0, len(opt.Clients)+1)
	for _, n := range opt.Clients {
		levels = append(levels, ServerLoadLevel{Clients: n})
	}
	levels = append(levels, ServerLoadLevel{Clients: opt.Clients[len(opt.Clients)/2], Mixed: true})
	var traceBytes, traces int
	for _, lv := range levels {
		opt.Progress(fmt.Sprintf("%d clients (mixed %v)", lv.Clients, lv.Mixed))
		res, err := runLevel(ctx, srv, l, keys, queries, opt, lv)
		if err != nil {
			return nil, err
		}
		rep.Levels = append(rep.Levels, res.level)
		rep.Compiles += res.level.Routes["POST /v1/compile"].Requests
		traceBytes, traces = traceBytes+res.traceBytes, traces+res.traces
	}
	if traces > 0 {
		rep.TraceBytes = traceBytes / traces
	}
	time.Sleep(2 * time.Second) // let the server go idle
	rep.RSSIdleKiB, err = srv.rss()
	return rep, err
}

// loadStore builds the layout at path and creates a key for each tenant.
func loadStore(ctx context.Context, path string, l layout) ([]string, error) {
	st := sqlite.New(path, sqlite.Options{})
	if err := st.Open(ctx); err != nil {
		return nil, err
	}
	defer st.Close()
	if err := l.build(ctx, st); err != nil {
		return nil, err
	}
	if err := st.IndexMessages(ctx); err != nil {
		return nil, err
	}
	keys := make([]string, l.tenants)
	for tn := range l.tenants {
		_, secret, err := st.CreateKey(ctx, tenure.APIKey{Name: "load", Principal: l.principal(tn)})
		if err != nil {
			return nil, err
		}
		keys[tn] = secret
	}
	return keys, nil
}

type server struct {
	cmd  *exec.Cmd
	url  string
	done chan struct{}
}

// startServer starts cmd and waits for it to print its address.
func startServer(ctx context.Context, cmd *exec.Cmd) (*server, error) {
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	s := &server{cmd: cmd, done: make(chan struct{})}
	found := make(chan string, 1)
	go func() {
		defer close(s.done)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, rest, ok := strings.Cut(sc.Text(), " on http://"); ok && s.url == "" {
				addr, _, _ := strings.Cut(rest, " ")
				found <- "http://" + addr
			}
		}
	}()
	select {
	case s.url = <-found:
		return s, nil
	case <-s.done:
		cmd.Wait()
		return nil, errors.New("the server ended before it listened")
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	s.stop()
	return nil, errors.New("the server did not listen within a minute")
}

func (s *server) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	<-s.done
	s.cmd.Wait()
}

// cpu returns the process's user and system CPU time.
func (s *server) cpu() (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	// Fields after the command name in parentheses; utime and stime are
	// the 14th and 15th fields, in clock ticks (100 a second on Linux).
	f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+st) * 10 * time.Millisecond, nil
}

// rss returns the process's resident set, KiB.
func (s *server) rss() (int, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			return strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(rest), " kB"))
		}
	}
	return 0, errors.New("no VmRSS")
}

type levelResult struct {
	level              ServerLoadLevel
	traceBytes, traces int
}

func runLevel(ctx context.Context, srv *server, l layout, keys, queries []string, opt ServerLoadOptions, lv ServerLoadLevel) (levelResult, error) {
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: lv.Clients}}
	var mu sync.Mutex
	lat := map[string][]float64{}
	var res levelResult
	next := make(chan int, opt.Requests)
	for i := range opt.Requests {
		next <- i
	}
	close(next)
	call := func(route, method, url, key string, body []byte) ([]byte, error) {
		req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(body))
		if err != nil {
			return nil, err
		}
		req.Header.Set("Authorization", "Bearer "+key)
		req.Header.Set("Content-Type", "application/json")
		t0 := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		d := time.Since(t0)
		if err != nil {
			return nil, err
		}
		if resp.StatusCode/100 != 2 {
			return nil, fmt.Errorf("%s: %s: %s", route, resp.Status, b)
		}
		mu.Lock()
		lat[route] = append(lat[route], ms(d))
		mu.Unlock()
		return b, nil
	}
	cpu0, err := srv.cpu()
	if err != nil {
		return res, err
	}
	start := time.Now()
	var wg sync.WaitGroup
	errs := make(chan error, lv.Clients)
	for c := range lv.Clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(c), uint64(lv.Clients)))
			for i := range next {
				th := rng.IntN(l.threads)
				key := keys[th/l.perTenant]
				body, _ := json.Marshal(map[string]any{"thread_id": fmt.Sprintf("t%d", th), "query": queries[i%len(queries)],
					"budget": opt.Budget, "task_type": tenure.TaskQuestionAnswering})
				b, err := call("POST /v1/compile", "POST", srv.url+"/v1/compile", key, body)
				if err != nil {
					errs <- err
					return
				}
				if !lv.Mixed {
					continue
				}
				var ans struct {
					TraceID string `json:"trace_id"`
				}
				if err := json.Unmarshal(b, &ans); err != nil {
					errs <- err
					return
				}
				tr, err := call("GET /v1/traces/{id}", "GET", srv.url+"/v1/traces/"+ans.TraceID, key, nil)
				if err != nil {
					errs <- err
					return
				}
				mu.Lock()
				res.traceBytes, res.traces = res.traceBytes+len(tr), res.traces+1
				mu.Unlock()
				if i%5 == 0 {
					msg, _ := json.Marshal(map[string]any{"messages": []map[string]any{{"thread_id": fmt.Sprintf("t%d", th),
						"id": fmt.Sprintf("load-%d-%d", lv.Clients, i), "role": "user", "content": queries[(i+1)%len(queries)],
						"created_at": benchStart.Add(time.Duration(l.size+i) * time.Hour)}}})
					if _, err := call("POST /v1/messages", "POST", srv.url+"/v1/messages", key, msg); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	secs := time.Since(start).Seconds()
	close(errs)
	if err := <-errs; err != nil {
		return res, err
	}
	cpu1, err := srv.cpu()
	if err != nil {
		return res, err
	}
	lv.Seconds = secs
	lv.Routes = map[string]RouteLoad{}
	for route, xs := range lat {
		lv.Routes[route] = RouteLoad{Requests: len(xs), PerSecond: float64(len(xs)) / secs, Latency: percentiles(xs)}
	}
	lv.CPUPerCompile = ms(cpu1-cpu0) / float64(len(lat["POST /v1/compile"]))
	res.level = lv
	return res, nil
}

// WriteTable writes the load run as a readable table.
func (r *ServerLoadReport) WriteTable(w io.Writer) error {
	fmt.Fprintf(w, "server under load: %d messages, %d-token compiles, one thread each, loopback\n", r.Messages, r.Budget)
	fmt.Fprintf(w, "  %-8s %-7s %-22s %9s %8s  %-24s %s\n", "clients", "mix", "route", "requests", "req/s", "p50/p95/p99 ms", "server CPU ms/compile")
	for _, lv := range r.Levels {
		mix := "compile"
		if lv.Mixed {
			mix = "mixed"
		}
		for _, route := range []string{"POST /v1/compile", "GET /v1/traces/{id}", "POST /v1/messages"} {
			rl, ok := lv.Routes[route]
			if !ok {
				continue
			}
			cpu := ""
			if route == "POST /v1/compile" {
				cpu = fmt.Sprintf("%.1f", lv.CPUPerCompile)
			}
			fmt.Fprintf(w, "  %-8d %-7s %-22s %9d %8.1f  %-24s %s\n", lv.Clients, mix, route, rl.Requests, rl.PerSecond,
				fmt.Sprintf("%.1f/%.1f/%.1f", rl.Latency.P50, rl.Latency.P95, rl.Latency.P99), cpu)
		}
	}
	fmt.Fprintf(w, "  server RSS: %d KiB after opening, %d KiB idle after %d compiles (traces kept); mean kept trace %d bytes\n",
		r.RSSStartKiB, r.RSSIdleKiB, r.Compiles, r.TraceBytes)
	return nil
}
