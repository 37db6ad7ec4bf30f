package postgres_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
)

// proxy forwards TCP connections to a PostgreSQL server until it is
// stopped, which closes every connection and stops listening, as a
// database going down would; start listens again on the same address.
type proxy struct {
	t      *testing.T
	target string
	addr   string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

func (p *proxy) start() {
	p.t.Helper()
	ln, err := net.Listen("tcp", p.addr)
	if err != nil {
		p.t.Fatal(err)
	}
	p.mu.Lock()
	p.ln, p.addr = ln, ln.Addr().String()
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { io.Copy(s, c); s.Close() }()
			go func() { io.Copy(c, s); c.Close() }()
		}
	}()
}

func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.ln.Close()
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}

// A store whose database goes away answers at once with unavailable,
// and works again when the database is back, without reopening; so it
// does after an administrator terminates its connections.
func TestDatabaseRestart(t *testing.T) {
	ctx := context.Background()
	u := pgtest.URL(t)
	pu, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{t: t, target: pu.Host, addr: "127.0.0.1:0"}
	p.start()
	defer p.stop()
	pu.Host = p.addr
	s := open(t, pu.String(), postgres.Options{})
	who := tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "policy", Clearance: tenure.HighlyRestricted}
	put := func() error {
		_, err := s.Put(ctx, who, tenure.Object{Key: "office.city", Content: "Berlin"})
		return err
	}
	read := func() error {
		_, err := s.CurrentValue(ctx, who, "office.city", tenure.Read{})
		return err
	}
	if err := put(); err != nil {
		t.Fatal(err)
	}

	t.Run("Down", func(t *testing.T) {
		p.stop()
		for name, op := range map[string]func() error{"put": put, "read": read, "ping": func() error { return s.Ping(ctx) }} {
			start := time.Now()
			err := op()
			if code := tenure.ErrorCode(err); code != tenure.CodeUnavailable {
				t.Errorf("%s with the database down: %v (code %s), want unavailable", name, err, code)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("%s took %v to fail", name, d)
			}
		}
		if s.Stats().Unavailable == 0 {
			t.Error("no unavailability counted")
		}
	})
	t.Run("Back", func(t *testing.T) {
		p.start()
		if err := put(); err != nil {
			t.Fatalf("put with the database back: %v", err)
		}
		if err := read(); err != nil {
			t.Fatalf("read with the database back: %v", err)
		}
	})
	t.Run("Terminated", func(t *testing.T) {
		admin, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatal(err)
		}
		defer admin.Close(ctx)
		var n int
		if err := admin.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
			WHERE application_name = current_setting('application_name') AND pid <> pg_backend_pid()`).Scan(&n); err != nil || n == 0 {
			t.Fatalf("terminated %d backends (%v)", n, err)
		}
		time.Sleep(100 * time.Millisecond) // the terminations reach the pool's connections
		before := s.Stats().Retries
		if err := put(); err != nil {
			t.Fatalf("put after pg_terminate_backend: %v", err)
		}
		if err := read(); err != nil {
			t.Fatalf("read after pg_terminate_backend: %v", err)
		}
		if s.Stats().Retries == before {
			t.Error("no broken connection was retried")
		}
	})
}
