package storetest

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/entity"
)

// EntityStore is a store with an entity registry.
type EntityStore interface {
	tenure.Store
	entity.Registry
}

// EntityFactory opens a fresh, empty store that reads time from now.
type EntityFactory func(t *testing.T, now func() time.Time) EntityStore

// RunEntities runs the entity registry suite: resolution on write (link,
// review, new), merge, link, split, keep and their undo with history,
// conflicts per entity and attribute whatever the keys, registries seen
// only by those who may (another user's and another tenant's are not
// found), who may change the shared registry, and bad input refused
// naming its field with nothing written.
func RunEntities(t *testing.T, f EntityFactory) {
	t.Run("Resolution", func(t *testing.T) { testEntityResolution(t, f) })
	t.Run("MergeUndoSplit", func(t *testing.T) { testEntityMergeUndoSplit(t, f) })
	t.Run("AttributeConflict", func(t *testing.T) { testEntityAttributeConflict(t, f) })
	t.Run("Visibility", func(t *testing.T) { testEntityVisibility(t, f) })
	t.Run("Invalid", func(t *testing.T) { testEntityInvalid(t, f) })
}

var (
	entAlice = tenure.Principal{UserID: "alice", TenantID: "acme"}
	entBob   = tenure.Principal{UserID: "bob", TenantID: "acme"}
	entAdmin = tenure.Principal{UserID: "admin", TenantID: "acme", Permissions: []string{tenure.PermEntitiesWrite}}
	entEve   = tenure.Principal{UserID: "alice", TenantID: "globex"}
)

type entEnv struct {
	t     *testing.T
	s     EntityStore
	clock *Clock
	ctx   context.Context
}

func newEntEnv(t *testing.T, f EntityFactory) *entEnv {
	c := NewClock(T0)
	return &entEnv{t: t, s: f(t, c.Now), clock: c, ctx: context.Background()}
}

func (e *entEnv) put(p tenure.Principal, o tenure.Object) tenure.WriteResult {
	e.t.Helper()
	e.clock.Advance(time.Minute)
	if o.UserID == "" && p.UserID != "" && o.Key != "shared" {
		o.UserID = p.UserID
	}
	r, err := e.s.Put(e.ctx, p, o)
	if err != nil {
		e.t.Fatalf("put %s: %v", o.Key, err)
	}
	return r
}

func (e *entEnv) entities(p tenure.Principal, q entity.Query) map[string]entity.Entity {
	e.t.Helper()
	es, err := e.s.Entities(e.ctx, p, q)
	if err != nil {
		e.t.Fatalf("entities: %v", err)
	}
	m := map[string]entity.Entity{}
	for _, x := range es {
		m[x.ID] = x
	}
	return m
}

func (e *entEnv) show(p tenure.Principal, id string) entity.View {
	e.t.Helper()
	v, err := e.s.Entity(e.ctx, p, id, "")
	if err != nil {
		e.t.Fatalf("entity %s: %v", id, err)
	}
	return v
}

func entFact(key, content, ent, attr string, valid time.Time) tenure.Object {
	return tenure.Object{Key: key, Content: content, CanonicalEntityIDs: []string{ent}, Attribute: attr, ValidFrom: valid}
}

func testEntityResolution(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	e.put(entAlice, entFact("profile/lena/employer", "Lena works at Acme", "person:lena_ortiz", "", T0))
	e.put(entAlice, entFact("profile/lena/city", "Lena lives in Lyon", "person:Dr. Lena Ortiz", "", T0))
	e.put(entAlice, entFact("profile/makesh/city", "Makesh lives in Pune", "person:makesh", "", T0))
	e.put(entAlice, entFact("profile/mukesh/job", "Mukesh is a pilot", "person:mukesh", "", T0))
	es := e.entities(entAlice, entity.Query{})
	if len(es) != 3 {
		t.Fatalf("entities = %v, want lena_ortiz, makesh, mukesh", keys(es))
	}
	lena := es["person:lena_ortiz"]
	if lena.Status != entity.StatusActive || !slices.Contains(lena.Aliases, "person:dr_lena_ortiz") || lena.UserID != "alice" || lena.Version != 2 {
		t.Errorf("lena = %+v, want the honorific form linked as an alias (version 2)", lena)
	}
	mukesh := es["person:mukesh"]
	if mukesh.Status != entity.StatusPending || len(mukesh.Candidates) != 1 || mukesh.Candidates[0].EntityID != "person:makesh" {
		t.Errorf("mukesh = %+v, want pending with makesh as candidate", mukesh)
	}
	if p := e.entities(entAlice, entity.Query{Status: entity.StatusPending}); len(p) != 1 {
		t.Errorf("pending = %v", keys(p))
	}
	// A second mention of the pending name is the same pending node.
	e.put(entAlice, entFact("profile/mukesh/age", "Mukesh is 40", "person:Mukesh", "", T0))
	if n := len(e.entities(entAlice, entity.Query{})); n != 3 {
		t.Errorf("after a repeated mention: %d entities", n)
	}
	d, err := e.s.ResolveMention(e.ctx, entAlice, "person:Makesh", "alice")
	if err != nil || d.Action != entity.Link || d.EntityID != "person:makesh" {
		t.Errorf("ResolveMention(Makesh) = %+v, %v", d, err)
	}
	if d, err := e.s.ResolveMention(e.ctx, entAlice, "person:Lena", "alice"); err != nil || d.Action != entity.Review {
		t.Errorf("ResolveMention(Lena) = %+v, %v; want review", d, err)
	}
	// The speakers of a digest are mentions too: see the engine's
	// extraction; here the registry only grows by writes.
	if n := len(e.entities(entAlice, entity.Query{})); n != 3 {
		t.Errorf("ResolveMention wrote: %d entities", n)
	}
}

func testEntityMergeUndoSplit(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	e.put(entAlice, entFact("a", "Makesh lives in Pune", "person:makesh", "", T0))
	e.put(entAlice, entFact("b", "Mukesh is a pilot", "person:mukesh", "", T0))
	e.clock.Advance(time.Hour)
	ch, err := e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:mukesh", Into: "person:makesh", Reason: "same person"})
	if err != nil {
		t.Fatal(err)
	}
	if ch.Op.Kind != entity.OpLink || ch.Op.By != "alice" || len(ch.Entities) != 2 {
		t.Fatalf("link = %+v", ch)
	}
	v := e.show(entAlice, "person:makesh")
	if !slices.Equal(v.Entity.Aliases, []string{"person:makesh", "person:mukesh"}) || len(v.Ops) != 1 || len(v.Versions) != 2 {
		t.Errorf("makesh after link = %+v", v)
	}
	if v.Versions[0].TxEnd == nil || !v.Versions[0].TxEnd.Equal(v.Versions[1].TxStart) {
		t.Errorf("versions do not chain: %+v", v.Versions)
	}
	if m := e.show(entAlice, "person:mukesh"); m.Entity.Status != entity.StatusMerged || m.Entity.MergedInto != "person:makesh" {
		t.Errorf("mukesh after link = %+v", m.Entity)
	}
	// A mention of the merged name now binds to the target.
	if d, _ := e.s.ResolveMention(e.ctx, entAlice, "person:Mukesh", "alice"); d.EntityID != "person:makesh" {
		t.Errorf("after link, Mukesh resolves to %+v", d)
	}
	e.clock.Advance(time.Hour)
	u, err := e.s.UndoEntityOp(e.ctx, entAlice, ch.Op.ID)
	if err != nil {
		t.Fatal(err)
	}
	if u.Op.UndoneAt == nil || u.Op.UndoneBy != "alice" {
		t.Errorf("undo op = %+v", u.Op)
	}
	m := e.show(entAlice, "person:mukesh")
	if m.Entity.Status != entity.StatusPending || len(m.Entity.Candidates) == 0 || !slices.Equal(m.Entity.Aliases, []string{"person:mukesh"}) || len(m.Versions) != 3 {
		t.Errorf("mukesh after undo = %+v", m)
	}
	if v := e.show(entAlice, "person:makesh"); !slices.Equal(v.Entity.Aliases, []string{"person:makesh"}) || v.Ops[0].UndoneAt == nil {
		t.Errorf("makesh after undo = %+v", v)
	}
	if _, err := e.s.UndoEntityOp(e.ctx, entAlice, ch.Op.ID); tenure.ErrorCode(err) != tenure.CodeConflict {
		t.Errorf("undo twice: %v", err)
	}
	// Merge two active entities, then split the alias off again.
	e.put(entAlice, entFact("c", "Sam plays chess", "person:sam", "", T0))
	e.put(entAlice, entFact("d", "Samuel is a chemist", "person:samuel", "", T0))
	if _, err := e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:samuel", Keep: true}); err != nil {
		t.Fatal(err)
	}
	mc, err := e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:samuel", Into: "person:sam"})
	if err != nil || mc.Op.Kind != entity.OpMerge {
		t.Fatalf("merge = %+v, %v", mc, err)
	}
	sc, err := e.s.SplitEntity(e.ctx, entAlice, entity.SplitRequest{ID: "person:sam", Aliases: []string{"person:samuel"}, Label: "Samuel"})
	if err != nil {
		t.Fatal(err)
	}
	// person:samuel is taken by the merged entity, so the split one is
	// samuel_2.
	if sc.Op.Into != "person:samuel_2" {
		t.Errorf("split into %q", sc.Op.Into)
	}
	if d, _ := e.s.ResolveMention(e.ctx, entAlice, "person:Samuel", "alice"); d.EntityID != "person:samuel_2" {
		t.Errorf("after split, Samuel resolves to %+v", d)
	}
	if _, err := e.s.UndoEntityOp(e.ctx, entAlice, sc.Op.ID); err != nil {
		t.Fatal(err)
	}
	if d, _ := e.s.ResolveMention(e.ctx, entAlice, "person:Samuel", "alice"); d.EntityID != "person:sam" {
		t.Errorf("after undoing the split, Samuel resolves to %+v", d)
	}
}

func testEntityAttributeConflict(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	// Two keys, one entity, one attribute: the later valid time wins.
	a := e.put(entAlice, entFact("meeting", "meeting: Tuesday 2pm", "person:sam", "meeting time", day(1)))
	b := e.put(entAlice, entFact("sam.next_meeting", "meeting: Thursday 3pm", "person:Sam", "Meeting-Time", day(2)))
	if b.Object.Attribute != "meeting_time" {
		t.Errorf("attribute stored as %q, want the slug", b.Object.Attribute)
	}
	if len(b.Changes) != 1 || b.Changes[0].ObjectID != a.Object.ObjectID || b.Changes[0].To != tenure.StatusSuperseded {
		t.Fatalf("second claim changes = %+v, want the first superseded", b.Changes)
	}
	// The same value under another key agrees: no conflict, no confirm.
	c := e.put(entAlice, entFact("sam.meeting", "meeting: Thursday 3pm", "person:sam", "meeting_time", day(2)))
	if c.Outcome != tenure.OutcomeCreated || len(c.Changes) != 0 {
		t.Errorf("agreeing claim = %s %+v", c.Outcome, c.Changes)
	}
	// An equal tie under different keys is quarantined with a resolution.
	e.put(entAlice, entFact("drink1", "Sam drinks tea", "person:sam", "drink", day(3)))
	q := e.put(entAlice, entFact("drink2", "Sam drinks coffee", "person:sam", "drink", day(3)))
	if q.Outcome != tenure.OutcomeQuarantined || q.ResolutionID == "" {
		t.Errorf("tie = %s (resolution %q), want quarantined", q.Outcome, q.ResolutionID)
	}
	rs, err := e.s.Resolutions(e.ctx, entAlice, true)
	if err != nil || len(rs) != 1 || len(rs[0].ObjectIDs) != 2 {
		t.Errorf("resolutions = %+v, %v", rs, err)
	}
	// Other entity, other attribute, other user: no conflict.
	for _, o := range []struct {
		p tenure.Principal
		o tenure.Object
	}{
		{entAlice, entFact("ann.meeting", "meeting: Monday", "person:ann", "meeting_time", day(4))},
		{entAlice, entFact("sam.lunch", "lunch: Friday", "person:sam", "lunch_time", day(4))},
		{entBob, entFact("bob.sam.meeting", "meeting: Monday", "person:sam", "meeting_time", day(4))},
	} {
		if r := e.put(o.p, o.o); r.Outcome != tenure.OutcomeCreated || len(r.Changes) != 0 {
			t.Errorf("%s: %s %+v, want created without changes", o.o.Key, r.Outcome, r.Changes)
		}
	}
	// Authority first: a user constraint outranks an inferred claim
	// whatever the valid times.
	inferred := entFact("sam.office", "office: Berlin", "person:sam", "office", day(6))
	inferred.AuthorityLevel = tenure.Ptr(tenure.LevelInferred)
	e.put(entAlice, inferred)
	if r := e.put(entAlice, entFact("office", "office: Paris", "person:sam", "office", day(5))); len(r.Changes) != 1 || r.Changes[0].Reason != tenure.ReasonAuthority {
		t.Errorf("authority: %+v", r.Changes)
	}
	// Claims about a pending name compete once it is linked.
	e.put(entAlice, entFact("m1", "Makesh lives in Pune", "person:makesh", "city", day(1)))
	e.put(entAlice, entFact("m2", "Mukesh lives in Mumbai", "person:mukesh", "city", day(2)))
	if _, err := e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:mukesh", Into: "person:makesh"}); err != nil {
		t.Fatal(err)
	}
	r := e.put(entAlice, entFact("m3", "Mukesh lives in Delhi", "person:Mukesh", "city", day(3)))
	if len(r.Changes) != 2 {
		t.Errorf("after the link, a newer city claim changes %+v, want both older ones superseded", r.Changes)
	}
}

func testEntityVisibility(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	e.put(entAlice, entFact("a", "Lena works at Acme", "person:lena", "", T0))
	e.put(entAlice, entFact("b", "Lina is a nurse", "person:lina", "", T0))
	shared := entFact("shared", "Acme is a customer", "org:acme", "", T0)
	e.put(entAlice, shared)
	if es := e.entities(entAlice, entity.Query{}); len(es) != 3 || es["org:acme"].UserID != "" {
		t.Errorf("alice sees %v", keys(es))
	}
	if es := e.entities(entBob, entity.Query{}); len(es) != 1 || es["org:acme"].ID == "" {
		t.Errorf("bob sees %v, want only the shared org", keys(es))
	}
	ch, err := e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:lina", Keep: true})
	if err != nil {
		t.Fatal(err)
	}
	for name, err := range map[string]error{
		"show":         second(e.s.Entity(e.ctx, entBob, "person:lena", "")),
		"show user":    second(e.s.Entity(e.ctx, entBob, "person:lena", "alice")),
		"list user":    second(e.s.Entities(e.ctx, entBob, entity.Query{UserID: "alice"})),
		"other tenant": second(e.s.Entity(e.ctx, entEve, "person:lena", "")),
		"merge":        second(e.s.MergeEntities(e.ctx, entBob, entity.MergeRequest{From: "person:lina", Into: "person:lena"})),
		"merge user":   second(e.s.MergeEntities(e.ctx, entBob, entity.MergeRequest{From: "person:lina", Into: "person:lena", UserID: "alice"})),
		"undo":         second(e.s.UndoEntityOp(e.ctx, entBob, ch.Op.ID)),
		"undo tenant":  second(e.s.UndoEntityOp(e.ctx, entEve, ch.Op.ID)),
		"resolve":      second(e.s.ResolveMention(e.ctx, entBob, "person:lena", "alice")),
	} {
		if tenure.ErrorCode(err) != tenure.CodeNotFound {
			t.Errorf("%s: %v, want not found", name, err)
		}
	}
	if es := e.entities(entEve, entity.Query{}); len(es) != 0 {
		t.Errorf("another tenant sees %v", keys(es))
	}
	// The shared registry: any principal reads it, only a curator changes it.
	e.put(entAlice, tenure.Object{Key: "shared", Content: "Acme Inc. renewed", CanonicalEntityIDs: []string{"org:acme_inc"}})
	e.put(entAlice, tenure.Object{Key: "shared", Content: "Globex churned", CanonicalEntityIDs: []string{"org:globex"}})
	if _, err := e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "org:globex", Into: "org:acme"}); tenure.ErrorCode(err) != tenure.CodeForbidden {
		t.Errorf("alice merges in the shared registry: %v, want forbidden", err)
	}
	if _, err := e.s.MergeEntities(e.ctx, entAdmin, entity.MergeRequest{From: "org:globex", Into: "org:acme"}); err != nil {
		t.Errorf("a curator merges in the shared registry: %v", err)
	}
	if es := e.entities(entBob, entity.Query{}); es["org:acme"].Version != 3 || len(es["org:acme"].Aliases) != 3 {
		t.Errorf("shared acme = %+v", es["org:acme"])
	}
}

func testEntityInvalid(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	e.put(entAlice, entFact("a", "Lena works at Acme", "person:lena", "", T0))
	e.put(entAlice, entFact("b", "Rome is hot", "place:rome", "", T0))
	before := e.entities(entAlice, entity.Query{})
	for _, tc := range []struct {
		name, field string
		code        tenure.Code
		err         error
	}{
		{"ErrStatus", "status", tenure.CodeInvalid, second(e.s.Entities(e.ctx, entAlice, entity.Query{Status: "gone"}))},
		{"ErrType", "type", tenure.CodeInvalid, second(e.s.Entities(e.ctx, entAlice, entity.Query{Type: "animal"}))},
		{"ErrLimit", "limit", tenure.CodeInvalid, second(e.s.Entities(e.ctx, entAlice, entity.Query{Limit: -1}))},
		{"ErrShowID", "id", tenure.CodeInvalid, second(e.s.Entity(e.ctx, entAlice, "", ""))},
		{"ErrMergeFrom", "from", tenure.CodeInvalid, second(e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{Into: "person:lena"}))},
		{"ErrMergeInto", "into", tenure.CodeInvalid, second(e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:lena"}))},
		{"ErrMergeSelf", "into", tenure.CodeInvalid, second(e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:lena", Into: "person:lena"}))},
		{"ErrMergeTypes", "into", tenure.CodeInvalid, second(e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:lena", Into: "place:rome"}))},
		{"ErrMergeUnknown", "into", tenure.CodeNotFound, second(e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:lena", Into: "person:nobody"}))},
		{"ErrSplitAlias", "aliases", tenure.CodeInvalid, second(e.s.SplitEntity(e.ctx, entAlice, entity.SplitRequest{ID: "person:lena", Aliases: []string{"person:zed"}}))},
		{"ErrSplitOwnID", "aliases", tenure.CodeInvalid, second(e.s.SplitEntity(e.ctx, entAlice, entity.SplitRequest{ID: "person:lena", Aliases: []string{"person:lena"}}))},
		{"ErrSettleBoth", "into", tenure.CodeInvalid, second(e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:lena", Into: "x", Keep: true}))},
		{"ErrSettleActive", "id", tenure.CodeConflict, second(e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:lena", Keep: true}))},
		{"ErrUndo", "op_id", tenure.CodeInvalid, second(e.s.UndoEntityOp(e.ctx, entAlice, ""))},
		{"ErrUndoUnknown", "op_id", tenure.CodeNotFound, second(e.s.UndoEntityOp(e.ctx, entAlice, "nope"))},
		{"ErrMention", "mention", tenure.CodeInvalid, second(e.s.ResolveMention(e.ctx, entAlice, "person: !!", ""))},
		{"ErrAttributeNoEntity", "attribute", tenure.CodeInvalid, second(e.s.Put(e.ctx, entAlice, tenure.Object{Key: "x", Content: "y", Attribute: "city"}))},
		{"ErrAttributeEmpty", "attribute", tenure.CodeInvalid, second(e.s.Put(e.ctx, entAlice, entFact("x", "y", "person:lena", "!!", T0)))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tenure.ErrorCode(tc.err) != tc.code || tenure.ErrorField(tc.err) != tc.field {
				t.Errorf("got %v, want %s naming %q", tc.err, tc.code, tc.field)
			}
		})
	}
	after := e.entities(entAlice, entity.Query{})
	for id, x := range before {
		if after[id].Version != x.Version {
			t.Errorf("%s changed by a refused request: %+v", id, after[id])
		}
	}
	if len(after) != len(before) {
		t.Errorf("entities %v after refused requests, want %v", keys(after), keys(before))
	}
}

func second[T any](_ T, err error) error { return err }

func keys(m map[string]entity.Entity) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
