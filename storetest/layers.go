package storetest

import (
	"testing"
	"time"

	"github.com/tenure-dev/tenure"
)

// testLayers checks the identity, working-set and environment semantics.
func testLayers(t *testing.T, f Factory) {
	t.Run("IdentityOncePerSession", func(t *testing.T) {
		e := newEnv(t, f)
		id := tenure.Object{Key: "identity", Layer: tenure.LayerIdentity, SessionID: "s1",
			Value: []byte(`{"user_name":"Eve","authority":"employee"}`)}
		r := e.put(employee, id)
		if r.Object.ObjectType != tenure.TypeIdentityFact {
			t.Errorf("identity object type = %s", r.Object.ObjectType)
		}
		_, err := e.s.Put(e.ctx, employee, id)
		wantCode(t, err, tenure.CodeConflict, "layer")
		edit := r.Object
		edit.Value = []byte(`{"user_name":"Eve","authority":"policy"}`)
		_, err = e.s.Put(e.ctx, employee, edit)
		wantCode(t, err, tenure.CodeConflict, "layer")
		id.SessionID = "s2"
		e.put(employee, id)
		_, err = e.s.Put(e.ctx, employee, tenure.Object{Layer: tenure.LayerIdentity, Content: "x"})
		wantCode(t, err, tenure.CodeInvalid, "session_id")
	})
	t.Run("WorkingSet", func(t *testing.T) {
		e := newEnv(t, f)
		s1 := tenure.Read{Scope: tenure.Scope{SessionID: "s1"}}
		a := e.put(employee, tenure.Object{Key: "scratch", Content: "step 1", Layer: tenure.LayerWorkingSet, SessionID: "s1"})
		b := e.put(employee, tenure.Object{Key: "scratch", Content: "step 2", Layer: tenure.LayerWorkingSet, SessionID: "s1"})
		if b.Object.ObjectID != a.Object.ObjectID || b.Object.Version != 2 || b.Outcome != tenure.OutcomeUpdated {
			t.Errorf("working-set rewrite: id %s v%d %s, want a new version of %s", b.Object.ObjectID, b.Object.Version, b.Outcome, a.Object.ObjectID)
		}
		e.wantValue(employee, "scratch", s1, "step 2")
		e.put(employee, tenure.Object{Key: "tmp", Content: "short-lived", Layer: tenure.LayerWorkingSet, SessionID: "s1",
			ValidUntil: ptrTime(T0.Add(10 * time.Minute))})
		e.clock.Advance(11 * time.Minute)
		e.wantMissing(employee, "tmp", s1)
		n, err := e.s.EndSession(e.ctx, employee, "s1")
		if err != nil || n != 2 {
			t.Fatalf("end session cleared %d, %v; want 2", n, err)
		}
		e.wantMissing(employee, "scratch", s1)
		if o, err := e.s.Get(e.ctx, employee, a.Object.ObjectID, s1); err != nil || o.Status != tenure.StatusCleared {
			t.Errorf("cleared item status %s, %v", o.Status, err)
		}
		if o, err := e.s.Get(e.ctx, employee, a.Object.ObjectID, tenure.Read{}); err == nil {
			t.Errorf("session item visible outside its session: %+v", o)
		}
	})
	t.Run("EnvironmentReadOnly", func(t *testing.T) {
		e := newEnv(t, f)
		env := tenure.Object{Key: "env.timezone", Content: "Europe/Paris", Layer: tenure.LayerEnvironment}
		_, err := e.s.Put(e.ctx, employee, env)
		wantCode(t, err, tenure.CodeForbidden, "layer")
		sensor := employee
		sensor.Permissions = []string{tenure.PermEnvironmentWrite}
		e.put(sensor, env)
		env.Content = "Europe/Berlin"
		if r := e.put(sensor, env); r.Outcome != tenure.OutcomeUpdated {
			t.Errorf("environment rewrite outcome %s", r.Outcome)
		}
		e.wantValue(employee, "env.timezone", tenure.Read{}, "Europe/Berlin")
	})
}
