package sqlite_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/memory"
)

// TestCuratorTargets lists the (tenant, user, persona) of open memories,
// in order and page by page; objects that are not memories are left out.
func TestCuratorTargets(t *testing.T) {
	ctx := context.Background()
	s := open(t, filepath.Join(t.TempDir(), "t.db"), nil)
	mem := &tenure.Memory{Kind: tenure.MemoryPeople, EntityRefs: []string{"person:john"}}
	for _, w := range []struct {
		p tenure.Principal
		o tenure.Object
	}{
		{tenure.Principal{TenantID: "b", UserID: "ada", PersonaID: "coach"}, tenure.Object{UserID: "ada", PersonaID: "coach", Content: "John runs", Memory: mem}},
		{tenure.Principal{TenantID: "a", UserID: "bob"}, tenure.Object{Content: "John swims", Memory: mem}},
		{tenure.Principal{TenantID: "b", UserID: "ada"}, tenure.Object{UserID: "ada", Content: "John rides", Memory: mem}},
		{tenure.Principal{TenantID: "a", UserID: "cy"}, tenure.Object{UserID: "cy", Key: "plan.db", Value: []byte(`"ClickHouse"`)}},
	} {
		if _, err := s.Put(ctx, w.p, w.o); err != nil {
			t.Fatal(err)
		}
	}
	want := []memory.Target{{TenantID: "a"}, {TenantID: "b", UserID: "ada"}, {TenantID: "b", UserID: "ada", PersonaID: "coach"}}
	var got []memory.Target
	var after memory.Target
	for range 4 {
		page, err := s.CuratorTargets(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, page...)
		if len(page) < 2 {
			break
		}
		after = page[len(page)-1]
	}
	if !slices.Equal(got, want) {
		t.Errorf("targets = %+v, want %+v", got, want)
	}
}
