package memory_test

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

var ada = tenure.Principal{UserID: "ada", TenantID: "acme", Authority: "employee"}

func openStore(t *testing.T) store { return openSQLite(t, nil) }

func people(ref, content string) tenure.Object {
	return tenure.Object{Content: content, Memory: &tenure.Memory{Kind: tenure.MemoryPeople, EntityRefs: []string{ref},
		Subtype: tenure.MemorySubtype{FactType: tenure.FactRelationship}}}
}

func TestPutMemory(t *testing.T) { eachStore(t, testPutMemory) }

func testPutMemory(t *testing.T, openAt func(*testing.T, *clock) store) {
	ctx := context.Background()
	s := openAt(t, nil)
	t.Run("OK", func(t *testing.T) {
		r, err := s.Put(ctx, ada, people("person:Sam's Sister", "Sam's sister is a nurse"))
		if err != nil {
			t.Fatal(err)
		}
		m := r.Object.Memory
		if got, want := r.Object.Key, "people|person|sams_sister|relationship"; got != want {
			t.Errorf("key = %q, want %q", got, want)
		}
		if got, want := m.EntityRefs[0], "person:sams_sister"; got != want {
			t.Errorf("ref = %q, want %q", got, want)
		}
		if m.Level() != 1 || m.Source != tenure.MemoryFromUser || m.EntityLabel != "Sams Sister" || m.Subtype.EntityType != tenure.EntityPerson {
			t.Errorf("defaults: %+v", m)
		}
		again, err := s.Put(ctx, ada, people("person:sams_sister", "Sam's sister is a nurse"))
		if err != nil {
			t.Fatal(err)
		}
		if again.Outcome != tenure.OutcomeConfirmed || again.Object.ObjectID != r.Object.ObjectID || again.Object.Memory.Confirmations != 1 {
			t.Errorf("restatement: outcome %s, id %s (want %s), confirmations %d", again.Outcome, again.Object.ObjectID, r.Object.ObjectID, again.Object.Memory.Confirmations)
		}
	})
	for _, tc := range []struct {
		name  string
		edit  func(*tenure.Object)
		field string
	}{
		{"ErrNoType", func(o *tenure.Object) { o.Memory.Kind = "" }, "memory.type"},
		{"ErrType", func(o *tenure.Object) { o.Memory.Kind = "open_loop" }, "memory.type"},
		{"ErrRefType", func(o *tenure.Object) { o.Memory.EntityRefs = []string{"robot:r2"} }, "memory.entity_refs[0]"},
		{"ErrRefNoType", func(o *tenure.Object) { o.Memory.EntityRefs = []string{"john"} }, "memory.entity_refs[0]"},
		{"ErrNoRefs", func(o *tenure.Object) { o.Memory.EntityRefs = nil }, "memory.entity_refs"},
		{"ErrImportance", func(o *tenure.Object) { o.Memory.Importance = tenure.Ptr(4) }, "memory.importance"},
		{"ErrFactType", func(o *tenure.Object) { o.Memory.Subtype.FactType = "rumour" }, "memory.subtype.factType"},
		{"ErrSource", func(o *tenure.Object) { o.Memory.Source = "shadow" }, "memory.source"},
		{"ErrKey", func(o *tenure.Object) { o.Key = "people.john" }, "key"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := people("person:john", "John is my cofounder")
			tc.edit(&o)
			_, err := s.Put(ctx, ada, o)
			if e := tenure.AsError(err); err == nil || e.Code != tenure.CodeInvalid || e.Field != tc.field {
				t.Errorf("err = %v, want invalid naming %s", err, tc.field)
			}
		})
	}
	list, err := memory.List(ctx, s, ada, memory.Query{Entity: "person:john"})
	if err != nil || len(list) != 0 {
		t.Errorf("a rejected memory was written: %v %v", list, err)
	}
}

// TestDedupeRace is the spec's race: writers store memories with the
// same memory key at once. Every write succeeds (none fails silently),
// and one memory stays active.
func TestDedupeRace(t *testing.T) { eachStore(t, testDedupeRace) }

func testDedupeRace(t *testing.T, openAt func(*testing.T, *clock) store) {
	ctx := context.Background()
	s := openAt(t, nil)
	const writers = 16
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			content := "John is my cofounder"
			if i%2 == 1 {
				content = fmt.Sprintf("John is my cofounder (take %d)", i)
			}
			if _, err := s.Put(ctx, ada, people("person:john", content)); err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("write failed: %v", err)
	}
	active, err := memory.List(ctx, s, ada, memory.Query{Entity: "person:john"})
	if err != nil {
		t.Fatal(err)
	}
	if len(active) != 1 {
		t.Fatalf("%d active memories under one key, want 1: %+v", len(active), active)
	}
	all, err := memory.List(ctx, s, ada, memory.Query{Entity: "person:john", Archived: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range all {
		if o.Key != active[0].Key {
			t.Errorf("memory under key %q, want %q", o.Key, active[0].Key)
		}
	}
}

func TestPinAndImportance(t *testing.T) { eachStore(t, testPinAndImportance) }

func testPinAndImportance(t *testing.T, openAt func(*testing.T, *clock) store) {
	ctx := context.Background()
	s := openAt(t, nil)
	r, err := s.Put(ctx, ada, people("person:john", "John is my cofounder"))
	if err != nil {
		t.Fatal(err)
	}
	id := r.Object.ObjectID
	if _, err := s.Put(ctx, ada, people("org:acme", "Acme is John's company")); err != nil {
		t.Fatal(err)
	}
	pin, err := memory.SetPinned(ctx, s, ada, id, true)
	if err != nil {
		t.Fatal(err)
	}
	if m := pin.Object.Memory; !m.Pinned || m.Level() != 3 || pin.Object.Version != 2 || pin.Object.ObjectID != id {
		t.Errorf("pinned: %+v version %d", m, pin.Object.Version)
	}
	list, err := memory.List(ctx, s, ada, memory.Query{})
	if err != nil || len(list) != 2 || list[0].ObjectID != id {
		t.Errorf("list: pinned first, got %v %v", list, err)
	}
	if _, err := memory.SetImportance(ctx, s, ada, id, 1); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("importance of a pinned memory: err = %v, want invalid", err)
	}
	// A restatement by the extractor keeps the pin.
	if _, err := s.Put(ctx, ada, people("person:john", "John is my cofounder")); err != nil {
		t.Fatal(err)
	}
	if o, _ := s.Get(ctx, ada, id, tenure.Read{}); !o.Memory.Pinned {
		t.Errorf("a restatement unpinned the memory")
	}
	if _, err := memory.SetPinned(ctx, s, ada, id, false); err != nil {
		t.Fatal(err)
	}
	imp, err := memory.SetImportance(ctx, s, ada, id, 0)
	if err != nil {
		t.Fatal(err)
	}
	if m := imp.Object.Memory; m.Pinned || m.Level() != 0 {
		t.Errorf("after unpin and importance 0: %+v", m)
	}
	for _, tc := range []struct {
		name string
		err  error
		code tenure.Code
	}{
		{"ErrOutOfRange", func() error { _, err := memory.SetImportance(ctx, s, ada, id, 7); return err }(), tenure.CodeInvalid},
		{"ErrNotFound", func() error { _, err := memory.SetPinned(ctx, s, ada, "nothing", true); return err }(), tenure.CodeNotFound},
		{"ErrOtherUser", func() error {
			_, err := memory.SetPinned(ctx, s, tenure.Principal{UserID: "bob", TenantID: "other", Authority: "employee"}, id, true)
			return err
		}(), tenure.CodeNotFound},
		{"ErrBadQuery", func() error { _, err := memory.List(ctx, s, ada, memory.Query{Kind: "open_loop"}); return err }(), tenure.CodeInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tenure.ErrorCode(tc.err) != tc.code {
				t.Errorf("err = %v, want %s", tc.err, tc.code)
			}
		})
	}
	plain, err := s.Put(ctx, ada, tenure.Object{Key: "plan.db", Content: "ClickHouse"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := memory.SetPinned(ctx, s, ada, plain.Object.ObjectID, true); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("pinning a plain object: err = %v, want invalid", err)
	}
}
