package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/sqlite"
)

// faultyBackend fails the write transaction at a chosen step, as a crash
// between the upserts and the watermark would.
type faultyBackend struct {
	engine.Backend
	failAt string // "watermark" or "commit"
}

func (b faultyBackend) Begin(ctx context.Context) (engine.Tx, error) {
	tx, err := b.Backend.Begin(ctx)
	return faultyTx{Tx: tx, failAt: b.failAt}, err
}

type faultyTx struct {
	engine.Tx
	failAt string
}

var errCrash = errors.New("injected crash")

func (t faultyTx) SetWatermark(ctx context.Context, tenant string, w tenure.Watermark) error {
	if t.failAt == "watermark" {
		return errCrash
	}
	return t.Tx.SetWatermark(ctx, tenant, w)
}

func (t faultyTx) Commit() error {
	if t.failAt == "commit" {
		t.Tx.Rollback()
		return errCrash
	}
	return t.Tx.Commit()
}

type oneItem struct{}

func (oneItem) Extract(_ context.Context, b extract.Batch) (extract.Result, error) {
	var refs []string
	for _, m := range b.Messages {
		refs = append(refs, m.ID)
	}
	return extract.Result{Items: []extract.Candidate{{Item: tenure.StateItem{Type: tenure.StateDecision,
		Text: "Use Redis for caching", Status: "active", Confidence: tenure.ConfidenceHigh, Refs: refs}}}}, nil
}

func TestExtractStateCrashLeavesWatermark(t *testing.T) {
	p := tenure.Principal{UserID: "eve", TenantID: "acme", Authority: "employee", Clearance: tenure.Restricted}
	at := time.Date(2023, 5, 8, 13, 0, 0, 0, time.UTC)
	for _, step := range []string{"watermark", "commit"} {
		t.Run(step, func(t *testing.T) {
			st := sqlite.New(filepath.Join(t.TempDir(), "t.db"), sqlite.Options{})
			if err := st.Open(t.Context()); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { st.Close() })
			ctx := t.Context()
			if _, err := st.AppendMessages(ctx, p, []tenure.Message{{ThreadID: "th", ID: "m1", Role: "user", Content: "Let's use Redis", CreatedAt: at}}); err != nil {
				t.Fatal(err)
			}
			crashing := engine.New(faultyBackend{Backend: st.Backend(), failAt: step}, engine.Options{})
			if _, err := crashing.ExtractState(ctx, p, "th", oneItem{}); !errors.Is(err, errCrash) {
				t.Fatalf("err = %v, want the injected crash", err)
			}
			objs, err := st.List(ctx, p, tenure.Filter{KeyPrefix: "state/"})
			if err != nil || len(objs) != 0 {
				t.Fatalf("after the crash: %d state objects, %v; want none", len(objs), err)
			}
			// A healthy run applies the batch exactly once.
			r, err := st.ExtractState(ctx, p, "th", oneItem{})
			if err != nil || r.Messages != 1 || r.ItemsInserted != 1 {
				t.Fatalf("recovery run = %+v, %v; want the message applied once", r, err)
			}
			r, err = st.ExtractState(ctx, p, "th", oneItem{})
			if err != nil || r.SkippedReason != "no_new_messages" {
				t.Errorf("third run = %+v, %v; want nothing new", r, err)
			}
		})
	}
}
