package storetest

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
)

// OracleStore is what the existence-oracle property exercises: every read
// and write a principal can make, and the sources a compilation reads.
type OracleStore interface {
	MessageStore
	Candidates(ctx context.Context, q tenure.CandidateQuery) ([]tenure.Object, error)
	Expand(ctx context.Context, p tenure.Principal, r tenure.ExpandRequest) (tenure.Expansion, error)
	Close() error
}

// OracleFactory opens a fresh, empty store that reads time from now and
// takes object and resolution ids from newID. It registers its own cleanup.
type OracleFactory func(t *testing.T, now func() time.Time, newID func() string) OracleStore

// OracleConfig sizes the property: Worlds world pairs of Ops operations
// each, drawn from Seed.
type OracleConfig struct {
	Worlds, Ops int
	Seed        uint64
}

// worldsPerStore is how many worlds share a pair of stores: the full-text
// index holds every world's texts, so a store that kept them all would make
// each search slower than the last.
const worldsPerStore = 5

// RunOracles checks that no operation answers differently whether or not
// an object and a message its principal may not read exist. Each world
// pair is one random tenant replayed in two stores: in world B the owner
// writes a hidden object (and maybe a hidden message, and maybe deletes
// the object later) into the tenant, in world A the same writes go to
// another tenant. Every operation of the actors, none of whom may read
// them, must then answer byte for byte the same in both: the same JSON,
// or the same error code, field and message. Ids and times line up
// because both stores share a clock and draw ids from equal sequences
// (the hidden writes from a sequence of their own).
func RunOracles(t *testing.T, f OracleFactory, cfg OracleConfig) {
	start := time.Now()
	workers := min(runtime.GOMAXPROCS(0), cfg.Worlds)
	var (
		mu     sync.Mutex
		report = oracleReport{examples: map[string]string{}, counts: map[string]int{}}
		wg     sync.WaitGroup
	)
	for n := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var pair *oraclePair
			for i, done := n, 0; i < cfg.Worlds; i, done = i+workers, done+1 {
				if done%worldsPerStore == 0 {
					pair.close(t)
					pair = newOraclePair(t, f)
				}
				r := pair.runWorld(t.Context(), newOracleWorld(i, cfg.Seed), cfg.Ops)
				mu.Lock()
				report.add(r)
				mu.Unlock()
			}
			pair.close(t)
		}()
	}
	wg.Wait()
	t.Logf("%d world pairs × %d operations = %d (hidden object, principal, operation) triples in %s; hidden object stored in %d worlds",
		cfg.Worlds, cfg.Ops, cfg.Worlds*cfg.Ops, time.Since(start).Round(time.Millisecond), report.hidden)
	if report.hidden == 0 {
		t.Error("no world stored its hidden object: the property was not exercised")
	}
	if msg := report.String(); msg != "" {
		t.Error(msg)
	}
}

// oraclePair is a worker's two stores, filled with one world after
// another (each in its own tenants).
type oraclePair struct {
	clock  *Clock
	ids    [2]*oracleIDs
	sides  [2]oracleSide
	traces [2]int
}

func newOraclePair(t *testing.T, f OracleFactory) *oraclePair {
	p := &oraclePair{clock: NewClock(T0)}
	for i := range p.sides {
		p.ids[i] = &oracleIDs{}
		s := f(t, p.clock.Now, p.ids[i].next)
		n := &p.traces[i]
		p.sides[i] = oracleSide{s: s, c: compile.New(s, compile.Options{Now: p.clock.Now,
			NewID: func() string { *n++; return fmt.Sprintf("tr-%d", *n) }})}
	}
	return p
}

func (p *oraclePair) close(t *testing.T) {
	if p == nil {
		return
	}
	for _, x := range p.sides {
		if err := x.s.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	}
}

// oracleIDs hands out "id-N", or "PREFIX-N" while hidden writes run so
// that the main sequence stays the same in both worlds.
type oracleIDs struct {
	mu       sync.Mutex
	n, h     int
	hidePref string
}

func (g *oracleIDs) next() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.hidePref != "" {
		g.h++
		return fmt.Sprintf("%s-%d", g.hidePref, g.h)
	}
	g.n++
	return fmt.Sprintf("id-%d", g.n)
}

// worldResult is what one world pair found.
type worldResult struct {
	hidden     bool
	divergence []string // kind, then a description, in pairs
}

func (p *oraclePair) runWorld(ctx context.Context, w *oracleWorld, ops int) worldResult {
	var res worldResult
	rng := w.rng
	w.hiddenID = "h-" + w.tenant + "-1"
	for i := range p.ids {
		p.ids[i].mu.Lock()
		p.ids[i].h = 0
		p.ids[i].mu.Unlock()
	}
	hiddenAt, msgAt, deleteAt := 0, rng.IntN(ops/2), -1
	if w.hidden.Layer == "" || w.hidden.Layer == tenure.LayerPersistentFact {
		// Replacing layers hide it first: a later owner's write would
		// replace the actors' objects, which is no longer "plus h".
		hiddenAt = rng.IntN(ops / 2)
	}
	if w.deleteHidden {
		deleteAt = hiddenAt + 1 + rng.IntN(ops/2)
	}
	if w.hiddenMsg != nil {
		w.hiddenMsg.CreatedAt = p.clock.Now().Add(time.Duration(msgAt) * time.Minute)
	}
	for k := range ops {
		switch k {
		case hiddenAt:
			errs := p.hide(ctx, w, func(x oracleSide, owner tenure.Principal) error {
				h := w.hidden.Clone()
				h.TenantID = owner.TenantID
				if _, err := x.s.Put(ctx, owner, h); err != nil {
					return err
				}
				for j, text := range w.decoys[side(w, owner)] {
					d := w.decoy(j, text)
					d.TenantID = owner.TenantID
					if _, err := x.s.Put(ctx, owner, d); err != nil {
						return fmt.Errorf("decoy %d: %w", j, err)
					}
				}
				return nil
			})
			res.hidden = errs[1] == nil
			for _, err := range errs {
				if err != nil && strings.HasPrefix(err.Error(), "decoy") {
					res.divergence = append(res.divergence, "decoy", fmt.Sprintf("world %s: %v", w.tenant, err))
				}
			}
			w.hiddenWritten = true
		case deleteAt:
			p.hide(ctx, w, func(x oracleSide, owner tenure.Principal) error {
				_, err := x.s.Retire(ctx, owner, tenure.RetireOptions{ObjectIDs: []string{w.hiddenID}, Rule: tenure.RetireHardDelete})
				return err
			})
		}
		if k == msgAt && w.hiddenMsg != nil {
			p.hide(ctx, w, func(x oracleSide, owner tenure.Principal) error {
				_, err := x.s.AppendMessages(ctx, owner, []tenure.Message{*w.hiddenMsg})
				return err
			})
		}
		op := w.nextOp(p.clock.Now())
		ra, ea := op.run(ctx, p.sides[0])
		rb, eb := op.run(ctx, p.sides[1])
		if a, b := answer(ra, ea), answer(rb, eb); a != b {
			res.divergence = append(res.divergence, op.kind, fmt.Sprintf("world %s, operation %d: %s\n%s", w.tenant, k, op.desc, clip(cmp.Diff(a, b), 3000)))
		}
		if ea == nil {
			w.learn(ra)
		}
		p.clock.Advance(time.Minute)
	}
	return res
}

// hide runs a write of the owner in both worlds, into the tenant in world
// B and into the elsewhere tenant in world A, with ids of its own.
func (p *oraclePair) hide(ctx context.Context, w *oracleWorld, write func(x oracleSide, owner tenure.Principal) error) [2]error {
	var errs [2]error
	for i, tenant := range []string{w.elsewhere, w.tenant} {
		owner := w.owner
		owner.TenantID = tenant
		p.ids[i].mu.Lock()
		p.ids[i].hidePref = "h-" + w.tenant
		p.ids[i].mu.Unlock()
		errs[i] = write(p.sides[i], owner)
		p.ids[i].mu.Lock()
		p.ids[i].hidePref = ""
		p.ids[i].mu.Unlock()
	}
	return errs
}

// side is 0 for world A's hidden writes (owner in the elsewhere
// tenant), 1 for world B's.
func side(w *oracleWorld, owner tenure.Principal) int {
	if owner.TenantID == w.elsewhere {
		return 0
	}
	return 1
}

// answer is an operation's response as compared: its JSON, or its error's
// code, field and message.
func answer(res any, err error) string {
	if err != nil {
		e := tenure.AsError(err)
		return fmt.Sprintf("error %s %q: %s", e.Code, e.Field, err)
	}
	b, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return "unmarshalable: " + err.Error()
	}
	return string(b)
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n[…]"
}

// oracleReport adds up the divergences by operation kind, keeping the
// first example of each.
type oracleReport struct {
	hidden   int
	counts   map[string]int
	examples map[string]string
}

func (r *oracleReport) add(w worldResult) {
	if w.hidden {
		r.hidden++
	}
	for i := 0; i < len(w.divergence); i += 2 {
		kind := w.divergence[i]
		r.counts[kind]++
		if _, ok := r.examples[kind]; !ok {
			r.examples[kind] = w.divergence[i+1]
		}
	}
}

func (r *oracleReport) String() string {
	if len(r.counts) == 0 {
		return ""
	}
	kinds := make([]string, 0, len(r.counts))
	for k := range r.counts {
		kinds = append(kinds, k)
	}
	sort.Strings(kinds)
	var b strings.Builder
	b.WriteString("responses differ with and without an object the caller may not read:\n")
	for _, k := range kinds {
		fmt.Fprintf(&b, "  %s: %d operations\n", k, r.counts[k])
	}
	for _, k := range kinds {
		fmt.Fprintf(&b, "\nfirst %s (-without +with):\n%s\n", k, r.examples[k])
	}
	return b.String()
}
