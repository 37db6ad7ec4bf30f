package memory_test

import (
	"context"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

func TestCurate(t *testing.T) {
	ctx := context.Background()
	c := &clock{t0}
	s := openAt(t, c)
	john := func(content, attr string, imp int, pinned bool) tenure.Object {
		c.t = c.t.Add(time.Minute)
		return mustPut(t, s, tenure.Object{Content: content, Memory: &tenure.Memory{Kind: tenure.MemoryPeople,
			EntityRefs: []string{"person:john"}, Attribute: attr, Importance: tenure.Ptr(imp), Pinned: pinned}})
	}
	corp := john("John works at Acme Corp", "works_at", 2, false)
	corporation := john("John works at Acme Corporation", "employer", 1, false)
	tea := john("John likes tea", "likes:tea", 1, false)
	pinned := john("John works at Acme Corp Inc", "company", 1, true)
	trivia := john("John wore a blue shirt", "shirt", 0, false)
	c.t = t0.Add(40 * 24 * time.Hour)
	opt := memory.CurateOptions{Now: c.now}

	dry, err := memory.Curate(ctx, s, ada, memory.CurateOptions{Now: c.now, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := memory.Curate(ctx, s, ada, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(dry.Folds) != 1 || len(dry.Archived) != 1 {
		t.Errorf("dry run: %+v", dry)
	}
	if len(rep.Folds) != 1 || rep.Folds[0].Kept != corp.ObjectID || len(rep.Folds[0].Folded) != 1 || rep.Folds[0].Folded[0] != corporation.ObjectID {
		t.Errorf("folds: %+v, want %s kept and %s folded", rep.Folds, corp.ObjectID, corporation.ObjectID)
	}
	if len(rep.Archived) != 1 || rep.Archived[0] != trivia.ObjectID {
		t.Errorf("archived: %v, want the stale trivial memory %s", rep.Archived, trivia.ObjectID)
	}
	kept, _ := s.Get(ctx, ada, corp.ObjectID, tenure.Read{})
	if m := kept.Memory; m.Source != tenure.MemoryCuratedFold || len(m.FoldedFrom) != 1 || m.FoldedFrom[0] != corporation.ObjectID || kept.Status != tenure.StatusActive {
		t.Errorf("kept: %+v status %s", m, kept.Status)
	}
	for _, id := range []string{corporation.ObjectID, trivia.ObjectID} {
		if o, err := s.Get(ctx, ada, id, tenure.Read{}); err != nil || o.Status != tenure.StatusArchived {
			t.Errorf("%s: status %s, err %v; want archived (not deleted)", id, o.Status, err)
		}
	}
	for _, id := range []string{tea.ObjectID, pinned.ObjectID} {
		if o, _ := s.Get(ctx, ada, id, tenure.Read{}); o.Status != tenure.StatusActive || o.Version != 1 {
			t.Errorf("%s was touched: status %s version %d", id, o.Status, o.Version)
		}
	}
	again, err := memory.Curate(ctx, s, ada, opt)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Folds) != 0 || len(again.Archived) != 0 {
		t.Errorf("a second run did something: %+v", again)
	}
}
