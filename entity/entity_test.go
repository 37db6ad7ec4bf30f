package entity_test

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

func mention(t *testing.T, s string) entity.Mention {
	t.Helper()
	m, err := entity.ParseMention("mention", s)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func ent(t *testing.T, s string) entity.Entity {
	t.Helper()
	m := mention(t, s)
	return entity.NewEntity(m, m.Key, "t", "", nil)
}

func TestParseMention(t *testing.T) {
	for _, tc := range []struct {
		in, key, name string
		typ           entity.Type
	}{
		{"person:John Doe", "person:john_doe", "John Doe", entity.Person},
		{"ORG: Acme Corp.", "org:acme_corp", "Acme Corp.", entity.Org},
		{"Acme", "other:acme", "Acme", entity.Other},
		{"ticket:ABC-12", "other:ticket_abc_12", "ticket:ABC-12", entity.Other},
		{"place:Austin,  Texas", "place:austin_texas", "Austin, Texas", entity.Place},
		{"person:Sam's sister", "person:sams_sister", "Sam's sister", entity.Person},
	} {
		m := mention(t, tc.in)
		if m.Key != tc.key || m.Name != tc.name || m.Type != tc.typ {
			t.Errorf("ParseMention(%q) = %+v, want key %q name %q type %s", tc.in, m, tc.key, tc.name, tc.typ)
		}
	}
	for _, bad := range []string{"", "person:", "person: ...", string(make([]byte, 201))} {
		_, err := entity.ParseMention("entity", bad)
		if tenure.ErrorCode(err) != tenure.CodeInvalid || tenure.ErrorField(err) != "entity" {
			t.Errorf("ParseMention(%.20q) = %v, want invalid naming the field", bad, err)
		}
	}
	if _, err := entity.NewMention("type", "animal", "Rex"); tenure.ErrorCode(err) != tenure.CodeInvalid {
		t.Errorf("unknown type: %v", err)
	}
}

func TestResolveThresholds(t *testing.T) {
	reg := []entity.Entity{ent(t, "person:Makesh"), ent(t, "person:Lena Ortiz"), ent(t, "place:Jordan"), ent(t, "org:Acme Corporation")}
	for _, tc := range []struct {
		mention string
		action  entity.Action
		entity  string
		min     float64
	}{
		{"person:makesh", entity.Link, "person:makesh", 1},
		{"person:Dr. Lena Ortiz", entity.Link, "person:lena_ortiz", entity.AutoLinkScore},
		{"org:ACME Corp", entity.Link, "org:acme_corporation", entity.AutoLinkScore},
		{"Acme Corporation", entity.Link, "org:acme_corporation", entity.AutoLinkScore}, // untyped
		{"person:Mukesh", entity.Review, "", entity.ReviewScore},                        // fuzzy: never binds
		{"person:Lena", entity.Review, "", entity.ReviewScore},                          // partial
		{"person:Jordan", entity.New, "", 0},                                            // type mismatch
		{"person:Priya", entity.New, "", 0},
	} {
		d := entity.Resolve(mention(t, tc.mention), reg)
		if d.Action != tc.action || d.EntityID != tc.entity || d.Score < tc.min {
			t.Errorf("Resolve(%q) = %s %q %.3f, want %s %q at least %.2f", tc.mention, d.Action, d.EntityID, d.Score, tc.action, tc.entity, tc.min)
		}
		if d.Action == entity.Review && d.Score >= entity.AutoLinkScore && !d.Ambiguous {
			t.Errorf("Resolve(%q): review at %.3f without ambiguity", tc.mention, d.Score)
		}
		if d.Action == entity.New && len(d.Candidates) > 0 {
			t.Errorf("Resolve(%q): new with candidates %v", tc.mention, d.Candidates)
		}
	}
}

func TestResolveAmbiguousNeverBinds(t *testing.T) {
	// An untyped "Jordan" is the person and the place equally well.
	reg := []entity.Entity{ent(t, "person:Jordan"), ent(t, "place:Jordan")}
	d := entity.Resolve(mention(t, "Jordan"), reg)
	if d.Action != entity.Review || !d.Ambiguous || d.EntityID != "" || len(d.Candidates) != 2 {
		t.Fatalf("Resolve(Jordan) = %+v, want an ambiguous review with two candidates", d)
	}
	// A typed one is not ambiguous.
	if d := entity.Resolve(mention(t, "place:Jordan"), reg); d.Action != entity.Link || d.EntityID != "place:jordan" {
		t.Errorf("Resolve(place:Jordan) = %+v", d)
	}
	// Merged entities are no candidates.
	reg[1].Status = entity.StatusMerged
	if d := entity.Resolve(mention(t, "Jordan"), reg); d.Action != entity.Link || d.EntityID != "person:jordan" {
		t.Errorf("with the place merged away: %+v", d)
	}
}

func TestResolvePendingNodeBindsItsOwnAlias(t *testing.T) {
	makesh := ent(t, "person:Makesh")
	m := mention(t, "person:Mukesh")
	d := entity.Resolve(m, []entity.Entity{makesh})
	pending := entity.NewEntity(m, m.Key, "t", "", d.Candidates)
	if pending.Status != entity.StatusPending || len(pending.Candidates) != 1 {
		t.Fatalf("pending = %+v", pending)
	}
	// The same surface form again is the same unresolved node.
	d = entity.Resolve(m, []entity.Entity{makesh, pending})
	if d.Action != entity.Link || d.EntityID != "person:mukesh" {
		t.Errorf("second mention: %+v, want a link to the pending node", d)
	}
}

func TestMergeUndoSplit(t *testing.T) {
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	makesh, mukesh := ent(t, "person:Makesh"), ent(t, "person:Mukesh")
	mukesh.Names = append(mukesh.Names, "Mukesh K")
	f, into, op, err := entity.Merge(mukesh, makesh, entity.Op{ID: "op1", By: "ana", At: at})
	if err != nil {
		t.Fatal(err)
	}
	if f.Status != entity.StatusMerged || f.MergedInto != "person:makesh" || len(f.Aliases) != 0 || f.Version != 2 {
		t.Errorf("merged from = %+v", f)
	}
	if diff := cmp.Diff([]string{"person:makesh", "person:mukesh"}, into.Aliases); diff != "" {
		t.Errorf("into aliases (-want +got):\n%s", diff)
	}
	if op.Kind != entity.OpMerge || diff(op.Aliases, []string{"person:mukesh"}) {
		t.Errorf("op = %+v", op)
	}
	// A mention of the merged alias now resolves to the target.
	if d := entity.Resolve(mention(t, "person:Mukesh"), []entity.Entity{into, f}); d.EntityID != "person:makesh" {
		t.Errorf("after merge: %+v", d)
	}
	// Undo restores both.
	vs, err := entity.Undo(op, f, into, mukesh, "bo", at.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if vs[0].Status != entity.StatusActive || diff(vs[0].Aliases, []string{"person:mukesh"}) || diff(vs[0].Names, []string{"Mukesh", "Mukesh K"}) || vs[0].Version != 3 {
		t.Errorf("undone from = %+v", vs[0])
	}
	if diff(vs[1].Aliases, []string{"person:makesh"}) || diff(vs[1].Names, []string{"Makesh"}) {
		t.Errorf("undone into = %+v", vs[1])
	}
	undone := op
	undone.UndoneAt = &at
	if _, err := entity.Undo(undone, f, into, mukesh, "bo", at); tenure.ErrorCode(err) != tenure.CodeConflict {
		t.Errorf("undo twice: %v", err)
	}
	// Split the merged alias off again.
	s, n, sop, err := entity.Split(into, []string{"person:mukesh"}, "Mukesh", "person:mukesh_2", entity.Op{ID: "op2", By: "ana", At: at})
	if err != nil {
		t.Fatal(err)
	}
	if diff(s.Aliases, []string{"person:makesh"}) || n.ID != "person:mukesh_2" || diff(n.Aliases, []string{"person:mukesh", "person:mukesh_2"}) || diff(n.Names, []string{"Mukesh"}) {
		t.Errorf("split: src %+v new %+v", s, n)
	}
	vs, err = entity.Undo(sop, s, n, into, "ana", at)
	if err != nil {
		t.Fatal(err)
	}
	if diff(vs[0].Aliases, []string{"person:makesh", "person:mukesh"}) || vs[1].Status != entity.StatusMerged || vs[1].MergedInto != "person:makesh" {
		t.Errorf("undone split: %+v", vs)
	}
}

func TestRegistryErrors(t *testing.T) {
	at := time.Now()
	a, b, place := ent(t, "person:Ann"), ent(t, "person:Bea"), ent(t, "place:Rome")
	merged := b
	merged.Status, merged.MergedInto = entity.StatusMerged, "person:x"
	pending := entity.NewEntity(mention(t, "person:Anne"), "person:anne", "t", "", []entity.Candidate{{EntityID: "person:ann", Score: 0.8}})
	other := b
	other.UserID = "u1"
	for name, tc := range map[string]struct {
		from, into entity.Entity
		code       tenure.Code
	}{
		"ErrSelf":          {a, a, tenure.CodeInvalid},
		"ErrType":          {a, place, tenure.CodeInvalid},
		"ErrMergedFrom":    {merged, a, tenure.CodeConflict},
		"ErrMergedInto":    {a, merged, tenure.CodeConflict},
		"ErrPendingInto":   {a, pending, tenure.CodeConflict},
		"ErrOtherRegistry": {a, other, tenure.CodeInvalid},
	} {
		t.Run(name, func(t *testing.T) {
			if _, _, _, err := entity.Merge(tc.from, tc.into, entity.Op{At: at}); tenure.ErrorCode(err) != tc.code {
				t.Errorf("Merge = %v, want %s", err, tc.code)
			}
		})
	}
	t.Run("OKLink", func(t *testing.T) {
		_, _, op, err := entity.Merge(pending, a, entity.Op{At: at})
		if err != nil || op.Kind != entity.OpLink {
			t.Errorf("Merge(pending) = %v, %v", op.Kind, err)
		}
	})
	for name, aliases := range map[string][]string{"ErrOwnID": {"person:ann"}, "ErrNotAlias": {"person:zed"}, "ErrNone": nil} {
		t.Run("Split"+name, func(t *testing.T) {
			if _, _, _, err := entity.Split(a, aliases, "", "person:x", entity.Op{At: at}); tenure.ErrorCode(err) != tenure.CodeInvalid {
				t.Errorf("Split(%v) = %v, want invalid", aliases, err)
			}
		})
	}
	if _, _, err := entity.Keep(a, entity.Op{At: at}); tenure.ErrorCode(err) != tenure.CodeConflict {
		t.Errorf("Keep(active) = %v", err)
	}
	if k, _, err := entity.Keep(pending, entity.Op{At: at}); err != nil || k.Status != entity.StatusActive || k.Candidates != nil {
		t.Errorf("Keep(pending) = %+v, %v", k, err)
	}
}

func TestFreeID(t *testing.T) {
	taken := map[string]bool{"person:sam": true, "person:sam_2": true}
	if got := entity.FreeID("person:sam", func(s string) bool { return taken[s] }); got != "person:sam_3" {
		t.Errorf("FreeID = %q", got)
	}
}

func diff(got, want []string) bool { return !cmp.Equal(got, want) }
