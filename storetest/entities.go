package storetest

import (
	"context"
	"maps"
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
	t.Run("MergeReconcile", func(t *testing.T) { testEntityMergeReconcile(t, f) })
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
	// Then source trust: same level and valid time, the better source wins.
	weak := entFact("sam.phone", "phone: 555-0100", "person:sam", "phone", day(7))
	weak.SourceAuthority = tenure.Ptr(0.3)
	e.put(entAlice, weak)
	strong := entFact("phone", "phone: 555-0199", "person:sam", "phone", day(7))
	strong.SourceAuthority = tenure.Ptr(0.9)
	if r := e.put(entAlice, strong); len(r.Changes) != 1 || r.Changes[0].Reason != tenure.ReasonSourceTrust {
		t.Errorf("source trust: %+v", r.Changes)
	}
	// Claims about a pending name compete once it is linked.
	e.put(entAlice, entFact("m1", "Makesh lives in Pune", "person:makesh", "city", day(1)))
	e.put(entAlice, entFact("m2", "Mukesh lives in Mumbai", "person:mukesh", "city", day(2)))
	if _, err := e.s.SettleEntity(e.ctx, entAlice, entity.SettleRequest{ID: "person:mukesh", Into: "person:makesh"}); err != nil {
		t.Fatal(err)
	}
	// The link re-reconciled them (the later city superseded the
	// earlier); a newer claim competes with the one that holds.
	r := e.put(entAlice, entFact("m3", "Mukesh lives in Delhi", "person:Mukesh", "city", day(3)))
	if len(r.Changes) != 1 || r.Changes[0].To != tenure.StatusSuperseded {
		t.Errorf("after the link, a newer city claim changes %+v, want the one that held superseded", r.Changes)
	}
}

// testEntityMergeReconcile: a merge re-reconciles the claims already
// stored about the merged entities' attributes, exactly as if they had
// been written about one entity (valid time, authority, a tie
// quarantined with a request, an agreeing value left alone, another
// scope untouched), with new versions only; undoing the merge restores
// each claim it changed, and closes the request it filed.
func testEntityMergeReconcile(t *testing.T, f EntityFactory) {
	e := newEntEnv(t, f)
	city1 := e.put(entAlice, entFact("k.city1", "Makesh lives in Pune", "person:makesh", "city", day(1))).Object
	phone1 := e.put(entAlice, entFact("k.phone1", "Makesh's phone is 555-0100", "person:makesh", "phone", day(1))).Object
	drink1 := e.put(entAlice, entFact("k.drink1", "Makesh drinks tea", "person:makesh", "drink", day(1))).Object
	team1 := e.put(entAlice, entFact("k.team1", "Makesh is on the core team", "person:makesh", "team", day(1))).Object
	inP1 := entFact("k.desk1", "Makesh sits on floor 2", "person:makesh", "desk", day(1))
	inP1.ProjectID = "p1"
	desk1 := e.put(entAlice, inP1).Object
	// "Mukesh" only resembles "Makesh": a pending entity of its own, so
	// these claims compete with none of the above when written.
	city2 := e.put(entAlice, entFact("k.city2", "Mukesh lives in Mumbai", "person:mukesh", "city", day(2))).Object
	inferred := entFact("k.phone2", "Mukesh's phone is 555-0199", "person:mukesh", "phone", day(2))
	inferred.AuthorityLevel = tenure.Ptr(tenure.LevelInferred)
	phone2 := e.put(entAlice, inferred).Object
	drink2 := e.put(entAlice, entFact("k.drink2", "Mukesh drinks coffee", "person:mukesh", "drink", day(1))).Object
	team2 := e.put(entAlice, tenure.Object{Key: "k.team2", Content: "Makesh is on the core team", CanonicalEntityIDs: []string{"person:mukesh"},
		Attribute: "team", ValidFrom: day(2), Value: team1.Value}).Object
	desk2 := e.put(entAlice, entFact("k.desk2", "Mukesh sits on floor 5", "person:mukesh", "desk", day(2))).Object
	// Claims alice's own key cannot read (a higher classification) are
	// reconciled too, and never named to her.
	high := entAlice
	high.Clearance = tenure.HighlyRestricted
	secret := func(key, content, ent string, d float64) tenure.Object {
		o := entFact(key, content, ent, "salary", day(d))
		o.SecurityClassification = tenure.HighlyRestricted
		return e.put(high, o).Object
	}
	salary1 := secret("k.salary1", "Makesh earns 10", "person:makesh", 1)
	secret("k.salary2", "Mukesh earns 20", "person:mukesh", 2)
	all := []tenure.Object{city1, phone1, drink1, team1, desk1, city2, phone2, drink2, team2, desk2}
	status := func() map[string]tenure.Status {
		t.Helper()
		m := map[string]tenure.Status{}
		for _, o := range all {
			got, err := e.s.Get(e.ctx, entAlice, o.ObjectID, tenure.Read{Scope: tenure.Scope{ProjectID: o.ProjectID}})
			if err != nil {
				t.Fatalf("get %s: %v", o.Key, err)
			}
			m[o.Key] = got.Status
		}
		return m
	}
	before := status()
	for k, s := range before {
		if s != tenure.StatusActive {
			t.Fatalf("before the merge %s is %s: the two names already competed", k, s)
		}
	}
	e.clock.Advance(time.Minute)
	ch, err := e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:mukesh", Into: "person:makesh", Reason: "one person"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ch.Op.Reconciled) != 0 {
		t.Errorf("the merge's answer carries its reconciliation record %+v", ch.Op.Reconciled)
	}
	after := status()
	want := map[string]tenure.Status{
		"k.city1": tenure.StatusSuperseded, "k.city2": tenure.StatusActive, // the later valid time
		"k.phone1": tenure.StatusActive, "k.phone2": tenure.StatusOverridden, // authority before time
		"k.drink1": tenure.StatusQuarantined, "k.drink2": tenure.StatusQuarantined, // a tie
		"k.team1": tenure.StatusActive, "k.team2": tenure.StatusActive, // the same value agrees
		"k.desk1": tenure.StatusActive, "k.desk2": tenure.StatusActive, // another scope
	}
	if !maps.Equal(after, want) {
		t.Errorf("after the merge: %v\nwant %v", after, want)
	}
	if len(ch.Claims) != 4 || slices.ContainsFunc(ch.Claims, func(c tenure.Change) bool { return c.ObjectID == salary1.ObjectID }) {
		t.Errorf("merge claims = %+v, want the 4 changed that alice's key reads", ch.Claims)
	}
	if o, err := e.s.Get(e.ctx, high, salary1.ObjectID, tenure.Read{}); err != nil || o.Status != tenure.StatusSuperseded {
		t.Errorf("the secret earlier salary after the merge: %s, %v; want superseded", o.Status, err)
	}
	// History is kept: the superseded claim has a new version linked to
	// its successor, and its first version is still there.
	h, err := e.s.History(e.ctx, entAlice, "k.city1", tenure.Scope{})
	if err != nil || len(h.Versions) != 2 || h.Versions[0].Status != tenure.StatusActive || h.Versions[1].SupersessionLink != city2.ObjectID {
		t.Errorf("k.city1 history = %+v, %v", h.Versions, err)
	}
	rs, err := e.s.Resolutions(e.ctx, entAlice, true)
	if err != nil || len(rs) != 1 || !slices.Contains(rs[0].ObjectIDs, drink1.ObjectID) || !slices.Contains(rs[0].ObjectIDs, drink2.ObjectID) {
		t.Errorf("open resolutions after the merge = %+v, %v", rs, err)
	}
	// Undo: every claim is back as it was, with new versions again.
	e.clock.Advance(time.Minute)
	u, err := e.s.UndoEntityOp(e.ctx, entAlice, ch.Op.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got := status(); !maps.Equal(got, before) {
		t.Errorf("after undoing the merge: %v\nwant %v", got, before)
	}
	if len(u.Claims) != 4 {
		t.Errorf("undo claims = %+v, want the 4 restored that alice's key reads", u.Claims)
	}
	if o, err := e.s.Get(e.ctx, high, salary1.ObjectID, tenure.Read{}); err != nil || o.Status != tenure.StatusActive {
		t.Errorf("the secret earlier salary after the undo: %s, %v; want active", o.Status, err)
	}
	if o, err := e.s.Get(e.ctx, entAlice, city1.ObjectID, tenure.Read{}); err != nil || o.Version != 3 || o.SupersessionLink != "" || o.ValidUntil != nil {
		t.Errorf("k.city1 after undo = v%d link %q until %v, %v", o.Version, o.SupersessionLink, o.ValidUntil, err)
	}
	if rs, err := e.s.Resolutions(e.ctx, entAlice, true); err != nil || len(rs) != 0 {
		t.Errorf("open resolutions after the undo = %+v, %v", rs, err)
	}
	// Merging again reconciles again.
	e.clock.Advance(time.Minute)
	again, err := e.s.MergeEntities(e.ctx, entAlice, entity.MergeRequest{From: "person:mukesh", Into: "person:makesh"})
	if err != nil {
		t.Fatal(err)
	}
	if got := status(); !maps.Equal(got, want) {
		t.Errorf("after merging again: %v\nwant %v", got, want)
	}
	// A claim written after the merge supersedes the city that holds;
	// undoing the merge restores the earlier city, which then competes
	// with that later claim as if written over it (and loses on valid
	// time), while the city the later claim displaced stays history.
	city3 := e.put(entAlice, entFact("k.city3", "Makesh lives in Delhi", "person:makesh", "city", day(3))).Object
	all = append(all, city3)
	e.clock.Advance(time.Minute)
	if _, err := e.s.UndoEntityOp(e.ctx, entAlice, again.Op.ID); err != nil {
		t.Fatal(err)
	}
	wantUndone := maps.Clone(before)
	wantUndone["k.city1"], wantUndone["k.city2"], wantUndone["k.city3"] = tenure.StatusSuperseded, tenure.StatusSuperseded, tenure.StatusActive
	if got := status(); !maps.Equal(got, wantUndone) {
		t.Errorf("after undoing a merge followed by a write: %v\nwant %v", got, wantUndone)
	}
	if o, err := e.s.Get(e.ctx, entAlice, city1.ObjectID, tenure.Read{}); err != nil || o.SupersessionLink != city3.ObjectID {
		t.Errorf("k.city1 after the second undo links %q, want the later claim, %v", o.SupersessionLink, err)
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
