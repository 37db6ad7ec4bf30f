package storecopy_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/engine"
	"github.com/tenure-dev/tenure/extract"
	"github.com/tenure-dev/tenure/internal/pgtest"
	"github.com/tenure-dev/tenure/postgres"
	"github.com/tenure-dev/tenure/semantic"
	"github.com/tenure-dev/tenure/snapshot"
	"github.com/tenure-dev/tenure/sqlite"
	"github.com/tenure-dev/tenure/storecopy"
	"github.com/tenure-dev/tenure/summarize"
)

func TestMain(m *testing.M) { os.Exit(pgtest.Main(m)) }

// A SQLite database with a supersession chain, a conflict, messages, a
// key, a workflow with a closed round and vectors moves to PostgreSQL
// whole: every table's rows and checksums match, the history reads the
// same with its transaction times, and a second copy writes nothing.
func TestCopy(t *testing.T) {
	ctx := context.Background()
	clock := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	now := func() time.Time { clock = clock.Add(time.Second); return clock }
	src := sqlite.New(filepath.Join(t.TempDir(), "tenure.db"), sqlite.Options{Now: now})
	if err := src.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	ada := tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "manager", Clearance: tenure.HighlyRestricted, Roles: []string{"router"}}
	bob := tenure.Principal{UserID: "bob", TenantID: "acme", Authority: "manager", Clearance: tenure.HighlyRestricted}
	must := func(_ any, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(src.Put(ctx, ada, tenure.Object{Key: "office.city", Content: "Berlin"}))
	must(src.Put(ctx, ada, tenure.Object{Key: "office.city", Content: "Paris"}))
	must(src.Put(ctx, ada, tenure.Object{Key: "team.size", Value: json.RawMessage(`12`), DependsOn: []string{"office.city"}}))
	at := time.Date(2025, 12, 1, 0, 0, 0, 0, time.UTC)
	must(src.Put(ctx, bob, tenure.Object{Key: "meeting", Value: json.RawMessage(`"Tuesday"`), ValidFrom: at}))
	must(src.Put(ctx, bob, tenure.Object{Key: "meeting", Value: json.RawMessage(`"Thursday"`), ValidFrom: at}))
	var msgs []tenure.Message
	for i := range 30 {
		msgs = append(msgs, tenure.Message{ThreadID: "t1", ID: fmt.Sprint(i), Role: "user", Content: fmt.Sprintf("turn %d about the Berlin office", i),
			CreatedAt: time.Date(2026, 1, 1, 9, i, 0, 0, time.UTC)})
	}
	must(src.AppendMessages(ctx, ada, msgs))
	// A persona's turn under the same id, in its own namespace; a pinned
	// memory (memory_rank).
	coach := ada
	coach.PersonaID = "coach"
	must(src.AppendMessages(ctx, coach, []tenure.Message{{ThreadID: "t1", ID: "0", Role: "user", Content: "a word with the coach",
		CreatedAt: time.Date(2026, 1, 1, 10, 0, 0, 0, time.UTC)}}))
	must(src.Put(ctx, ada, tenure.Object{Content: "Allergic to penicillin", Memory: &tenure.Memory{Kind: tenure.MemoryProfile,
		Attribute: "allergic_to", Pinned: true}}))
	if r := src.Digest(ctx, ada, "t1", extract.NewRules(extract.RulesOptions{}), summarize.NewExtractive(summarize.Options{}),
		engine.SummaryOptions{}); r.Err() != nil {
		t.Fatal(r.Err())
	}
	if _, _, err := src.CreateKey(ctx, tenure.APIKey{Name: "ci", Principal: ada}); err != nil {
		t.Fatal(err)
	}
	must(src.StartWorkflow(ctx, ada, snapshot.Workflow{WorkflowID: "orders", Query: "Which customers?"}))
	w := 0.5
	must(src.SubmitDeltas(ctx, ada, "orders", []snapshot.Delta{{AgentID: "ada", Round: 1, Weight: &w, Operation: snapshot.OpAdd,
		Path: "$.bindings.customer", Value: json.RawMessage(`"sea:customer:001"`), Provenance: "test"}}))
	must(src.CloseRound(ctx, ada, "orders", 0))
	h := semantic.HashText("acme", "", "turn 0")
	if err := src.Backend().PutVectors(ctx, "m", []semantic.Vector{{Hash: h, Values: semantic.Normalize([]float32{1, 2, 3})}},
		[]semantic.Link{{Seq: 1, Hash: h}, {Seq: 2, Refused: true}}); err != nil {
		t.Fatal(err)
	}

	u := pgtest.URL(t)
	if err := postgres.Migrate(ctx, u, time.Now()); err != nil {
		t.Fatal(err)
	}
	dst, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer dst.Close(ctx)
	// Tables this database leaves empty.
	optional := map[string]bool{"tombstones": true, "object_deps": true, "entities": true, "entity_ops": true, "object_attributes": true, "entity_names": true}
	for run := range 2 {
		res, err := storecopy.Copy(ctx, src.DB(), dst, nil)
		if err != nil {
			t.Fatal(err)
		}
		written := 0
		for _, r := range res {
			if !r.OK() {
				t.Errorf("run %d: %s: %d rows (%s) copied as %d (%s)", run, r.Table, r.Source, r.SourceSum, r.Target, r.TargetSum)
			}
			if r.Source == 0 && !optional[r.Table] {
				t.Errorf("run %d: no %s to copy", run, r.Table)
			}
			written += r.Written
		}
		if run == 1 && written != 0 {
			t.Errorf("the second copy wrote %d rows, want 0", written)
		}
	}

	pg := postgres.New(u, postgres.Options{Now: now})
	if err := pg.Open(ctx); err != nil {
		t.Fatal(err)
	}
	defer pg.Close()
	for _, key := range []string{"office.city", "team.size", "meeting"} {
		want, err := src.History(ctx, ada, key, tenure.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.History(ctx, ada, key, tenure.Scope{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("history of %s after the copy (-sqlite +postgres):\n%s", key, diff)
		}
	}
	for _, p := range []tenure.Principal{ada, coach} {
		want, err := src.Messages(ctx, p, tenure.MessageFilter{ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		got, err := pg.Messages(ctx, p, tenure.MessageFilter{ThreadID: "t1"})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" || len(want) != 30+len(p.PersonaID)/len("coach") {
			t.Errorf("messages of %q after the copy: %d (-sqlite +postgres):\n%s", p.PersonaID, len(want), diff)
		}
		wantS, err := src.Sessions(ctx, p, tenure.SessionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		gotS, err := pg.Sessions(ctx, p, tenure.SessionQuery{})
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(wantS, gotS); diff != "" || len(wantS) == 0 {
			t.Errorf("sessions of %q after the copy: %d (-sqlite +postgres):\n%s", p.PersonaID, len(wantS), diff)
		}
	}
	wantRes, _ := src.Resolutions(ctx, ada, false)
	gotRes, _ := pg.Resolutions(ctx, ada, false)
	if len(wantRes) == 0 || !cmp.Equal(wantRes, gotRes) {
		t.Errorf("resolutions: %d in SQLite, %d in PostgreSQL", len(wantRes), len(gotRes))
	}
	// The copied store goes on: new rows take ids after the copied ones.
	must(pg.Put(ctx, ada, tenure.Object{Key: "office.city", Content: "Rome"}))
	must(pg.AppendMessages(ctx, ada, []tenure.Message{{ThreadID: "t1", ID: "new", Role: "user", Content: "and now Rome",
		CreatedAt: time.Date(2026, 1, 2, 9, 0, 0, 0, time.UTC)}}))
	if _, err := pg.SubmitDeltas(ctx, ada, "orders", []snapshot.Delta{{AgentID: "ada", Round: 2, Weight: &w, Operation: snapshot.OpAdd,
		Path: "$.bindings.product", Value: json.RawMessage(`"sea:product:7"`), Provenance: "test"}}); err != nil {
		t.Fatal(err)
	}
}
