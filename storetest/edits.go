package storetest

import (
	"strings"
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testEdits checks writes that name an existing object: new versions,
// optimistic concurrency and guarded fields.
func testEdits(t *testing.T, f Factory) {
	e := newEnv(t, f)
	r := e.put(employee, tenure.Object{Key: "doc.title", Content: "Draft"})
	o := r.Object
	e.clock.Advance(time.Minute)
	o.Content, o.Value = "Final", nil
	u := e.put(employee, o)
	if u.Outcome != tenure.OutcomeUpdated || u.Object.Version != 2 || u.Object.ObjectID != o.ObjectID {
		t.Fatalf("edit: %s v%d", u.Outcome, u.Object.Version)
	}
	e.wantValue(employee, "doc.title", tenure.Read{}, "Final")
	// Stale version.
	_, err := e.s.Put(e.ctx, employee, o)
	wantCode(t, err, tenure.CodeConflict, "version")
	// Same content again is a confirmation, not a version.
	if c := e.put(employee, u.Object); c.Outcome != tenure.OutcomeConfirmed || c.Object.Version != 2 {
		t.Errorf("no-op edit: %s v%d", c.Outcome, c.Object.Version)
	}
	// Key and scope are fixed.
	k := u.Object
	k.Key = "doc.name"
	_, err = e.s.Put(e.ctx, employee, k)
	wantCode(t, err, tenure.CodeInvalid, "key")
	s := u.Object
	s.ProjectID = "p9"
	_, err = e.s.Put(e.ctx, employee, s)
	wantCode(t, err, tenure.CodeInvalid, "scope")
	// Lower ranks cannot edit higher ranks' objects.
	m := e.put(cfo, tenure.Object{Key: "q", Content: "manager's"}).Object
	m.Content, m.Value = "intern's", nil
	_, err = e.s.Put(e.ctx, intern, m)
	wantCode(t, err, tenure.CodeForbidden, "object_id")
	// Ids are the store's: an unknown id is not found, with or without a
	// version, and so is the id of an object the writer cannot read, in
	// the same words.
	_, err = e.s.Put(e.ctx, employee, tenure.Object{ObjectID: "nope", Version: 3, Content: "x"})
	wantCode(t, err, tenure.CodeNotFound, "object_id")
	_, unused := e.s.Put(e.ctx, intern, tenure.Object{ObjectID: "my-id", Content: "x"})
	wantCode(t, unused, tenure.CodeNotFound, "object_id")
	hidden := e.put(cfo, tenure.Object{Content: "hidden", SecurityClassification: tenure.Confidential}).Object
	_, taken := e.s.Put(e.ctx, intern, tenure.Object{ObjectID: hidden.ObjectID, Content: "mine"})
	wantCode(t, taken, tenure.CodeNotFound, "object_id")
	if want := strings.ReplaceAll(unused.Error(), "my-id", hidden.ObjectID); taken.Error() != want {
		t.Errorf("hidden id: %q, want the unknown id's answer %q", taken, want)
	}
}
