package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	tenurehttp "github.com/tenure-dev/tenure/http"
	"github.com/tenure-dev/tenure/internal/pgtest"
)

// Two servers on one PostgreSQL database, each with its own connection
// pool, take conflicting writes, appends (some of the same messages
// through both) and the digests those appends start, all at once: no
// version is lost, every key has one current version, every message is
// stored once at a position of its own, and no state item is stored
// twice. The servers are two 'tenure serve' runs of this process: their
// pools are as separate as two processes' would be.
func TestServeTwoServersOnePostgres(t *testing.T) {
	u := pgtest.URL(t)
	a := serve(t, u)
	b := serve(t, u, "--db-pool", "4")
	if a.key == "" || b.key != "" {
		t.Fatalf("the first server should create the one admin key: keys %q and %q", a.key, b.key)
	}
	ctx := context.Background()
	clients := []*tenurehttp.Client{
		tenurehttp.NewClient(a.url, a.key, tenurehttp.ClientOptions{}),
		tenurehttp.NewClient(b.url, a.key, tenurehttp.ClientOptions{}),
	}
	const workers, rounds, keys = 6, 8, 3
	t0 := time.Date(2026, 3, 2, 9, 0, 0, 0, time.UTC)
	var (
		mu      sync.Mutex
		written = map[string]bool{} // object id and version of every write that succeeded
		wg      sync.WaitGroup
		errs    = make(chan error, workers*rounds*3)
	)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c := clients[w%2]
			for r := range rounds {
				key := fmt.Sprintf("office.k%d", (w+r)%keys)
				v, _ := json.Marshal(fmt.Sprintf("w%d r%d", w, r))
				res, err := c.Put(ctx, tenure.Principal{}, tenure.Object{Key: key, Value: v})
				if err != nil {
					errs <- fmt.Errorf("put %s: %w", key, err)
					continue
				}
				mu.Lock()
				written[fmt.Sprintf("%s v%d", res.Object.ObjectID, res.Object.Version)] = true
				mu.Unlock()
				// Each round's message goes through both servers: one
				// is stored, the other skipped.
				m := tenure.Message{ThreadID: "standup", ID: fmt.Sprintf("w%d-r%d", w, r), Role: "user", Speaker: fmt.Sprintf("dev%d", w),
					Content:   fmt.Sprintf("We decided to use Redis for cache %d. My name is Dev%d.", r, w),
					CreatedAt: t0.Add(time.Duration(w*rounds+r) * time.Minute)}
				for _, c := range clients {
					if _, err := c.AppendMessages(ctx, tenure.Principal{}, []tenure.Message{m}); err != nil {
						errs <- fmt.Errorf("append %s: %w", m.ID, err)
					}
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	// Stopping waits for the digests in flight.
	for _, s := range []served{a, b} {
		if code := s.stop(); code != 0 {
			t.Fatalf("serve exited %d: %s", code, s.stderr.String())
		}
	}

	db, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close(ctx)
	count := func(query string) int {
		t.Helper()
		var n int
		if err := db.QueryRow(ctx, query).Scan(&n); err != nil {
			t.Fatalf("%s: %v", query, err)
		}
		return n
	}
	rows, err := db.Query(ctx, `SELECT object_id || ' v' || version FROM objects WHERE key LIKE 'office.%'`)
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]bool{}
	for rows.Next() {
		var s string
		rows.Scan(&s)
		stored[s] = true
	}
	rows.Close()
	for v := range written {
		if !stored[v] {
			t.Errorf("version %s was written and is lost", v)
		}
	}
	if len(written) != workers*rounds {
		t.Errorf("%d writes succeeded, want %d", len(written), workers*rounds)
	}
	if n := count(`SELECT count(*) FROM (SELECT key FROM objects WHERE tx_end IS NULL AND status = 'active'
		GROUP BY tenant_id, key, user_id, project_id, session_id, task_id, sandbox_id HAVING count(*) > 1) x`); n != 0 {
		t.Errorf("%d slots with more than one current version", n)
	}
	if n := count(`SELECT count(DISTINCT key) FROM objects WHERE key LIKE 'office.%' AND tx_end IS NULL AND status = 'active'`); n != keys {
		t.Errorf("%d keys with a current version, want %d", n, keys)
	}
	if n := count(`SELECT count(*) FROM messages`); n != workers*rounds {
		t.Errorf("%d messages stored, want %d (each appended twice)", n, workers*rounds)
	}
	if n := count(`SELECT count(*) FROM (SELECT 1 FROM messages GROUP BY tenant_id, thread_id, pos HAVING count(*) > 1) x`); n != 0 {
		t.Errorf("%d positions taken by more than one message", n)
	}
	if n := count(`SELECT count(*) FROM objects WHERE key LIKE 'state/%' AND tx_end IS NULL`); n == 0 {
		t.Error("the digests stored no state item")
	}
	if n := count(`SELECT count(*) FROM (SELECT 1 FROM objects WHERE key LIKE 'state/%' AND tx_end IS NULL AND status = 'active'
		GROUP BY tenant_id, key HAVING count(*) > 1) x`); n != 0 {
		t.Errorf("%d state items stored twice", n)
	}
}

// On PostgreSQL, /readyz checks the database and /metrics reports the
// connection pool.
func TestServePostgresReadyAndMetrics(t *testing.T) {
	s := serve(t, pgtest.URL(t), "--db-pool", "3")
	for _, path := range []string{"/readyz", "/metrics"} {
		req, _ := http.NewRequest("GET", s.url+path, nil)
		req.Header.Set("Authorization", "Bearer "+s.key)
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 {
			t.Fatalf("GET %s: %d %s", path, res.StatusCode, body)
		}
		if path == "/metrics" {
			for _, want := range []string{"tenure_db_pool_max_connections 3", "tenure_db_pool_acquires_total", "tenure_db_unavailable_total 0",
				"tenure_http_requests_total"} {
				if !strings.Contains(string(body), want) {
					t.Errorf("/metrics lacks %q", want)
				}
			}
		}
	}
}
