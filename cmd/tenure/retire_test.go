package main

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tenure-dev/tenure"
)

func TestRetire(t *testing.T) {
	db := newDB(t)
	promo := put(t, db, `{"key":"promo","value":"10%","valid_from":"2020-01-01T00:00:00Z","valid_until":"2020-06-01T00:00:00Z","retirement_rule":"archive"}`)
	keep := put(t, db, `{"key":"keep","value":1}`)
	wantAction := []tenure.RetireAction{{ObjectID: promo.Object.ObjectID, Key: "promo", Rule: tenure.RetireArchive, Reason: tenure.ReasonExpired, Weight: 1}}

	t.Run("DryRun", func(t *testing.T) {
		rep := mustJSON[tenure.RetireReport](t, "", "retire", "--dry-run", "--db", db)
		if !rep.DryRun {
			t.Error("report is not marked dry_run")
		}
		if diff := cmp.Diff(wantAction, rep.Actions); diff != "" {
			t.Errorf("dry-run actions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{`keep=1`, `promo="10%"`}, listed(t, db)); diff != "" {
			t.Errorf("dry run changed the store (-want +got):\n%s", diff)
		}
		out := mustCLI(t, "", "retire", "--dry-run", "--db", db).stdout
		if !strings.HasPrefix(out, "dry run: would retire 1 object of ") || !strings.Contains(out, "archive  promo  expired") {
			t.Errorf("human dry run:\n%s", out)
		}
	})
	t.Run("Sweep", func(t *testing.T) {
		rep := mustJSON[tenure.RetireReport](t, "", "retire", "--db", db)
		if diff := cmp.Diff(wantAction, rep.Actions); diff != "" {
			t.Errorf("sweep actions (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff([]string{`promo="10%"`}, listed(t, db, "--status", "archived")); diff != "" {
			t.Errorf("archived after sweep (-want +got):\n%s", diff)
		}
	})
	t.Run("ByID", func(t *testing.T) {
		rep := mustJSON[tenure.RetireReport](t, "", "retire", "--id", keep.Object.ObjectID, "--rule", "hard_delete", "--db", db)
		want := []tenure.RetireAction{{ObjectID: keep.Object.ObjectID, Key: "keep", Rule: tenure.RetireHardDelete, Reason: tenure.ReasonRequested}}
		if diff := cmp.Diff(want, rep.Actions, cmpopts.IgnoreFields(tenure.RetireAction{}, "Weight")); diff != "" {
			t.Errorf("retire --id actions (-want +got):\n%s", diff)
		}
		if r := tenureCLI(t, "", "get", "keep", "--db", db); r.code != tenure.ExitCode(tenure.CodeNotFound) {
			t.Errorf("get after hard delete: exit %d, want not found", r.code)
		}
	})
}

func TestEndSession(t *testing.T) {
	db := newDB(t)
	r := put(t, db, `{"key":"scratch","value":"draft text","layer":"working_set"}`, "--session", "s1")
	if r.Object.SessionID != "s1" {
		t.Fatalf("session_id %q, want s1 from --session", r.Object.SessionID)
	}
	if got := getValue(t, db, "scratch", "--session", "s1"); got != `"draft text"` {
		t.Errorf("get in session: %s", got)
	}
	res := mustJSON[endSessionResult](t, "", "end-session", "s1", "--db", db)
	if diff := cmp.Diff(endSessionResult{SessionID: "s1", Cleared: 1}, res); diff != "" {
		t.Errorf("end-session (-want +got):\n%s", diff)
	}
	if r := tenureCLI(t, "", "get", "scratch", "--session", "s1", "--db", db); r.code != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("get after end-session: exit %d, want not found", r.code)
	}
	if out := mustCLI(t, "", "end-session", "s1", "--db", db).stdout; out != "session s1 ended: cleared 0 working-set items\n" {
		t.Errorf("human end-session: %q", out)
	}
}

func TestResolutions(t *testing.T) {
	db := newDB(t)
	if out := mustCLI(t, "", "resolutions", "--db", db).stdout; out != "no open resolution requests\n" {
		t.Errorf("empty: %q", out)
	}
	if got := mustJSON[[]tenure.Resolution](t, "", "resolutions", "--db", db); len(got) != 0 {
		t.Errorf("empty JSON: %+v", got)
	}
	a := put(t, db, `{"key":"meeting.day","value":"monday","valid_from":"2025-01-01T00:00:00Z"}`)
	b := put(t, db, `{"key":"meeting.day","value":"tuesday","valid_from":"2025-01-01T00:00:00Z"}`)
	if b.Outcome != tenure.OutcomeQuarantined || b.ResolutionID == "" {
		t.Fatalf("contradicting put: outcome %s resolution %q, want quarantined with a resolution", b.Outcome, b.ResolutionID)
	}
	rs := mustJSON[[]tenure.Resolution](t, "", "resolutions", "--db", db)
	if len(rs) != 1 || rs[0].ID != b.ResolutionID || rs[0].Kind != tenure.ResolveConflict || rs[0].Key != "meeting.day" {
		t.Fatalf("resolutions: %+v", rs)
	}
	if diff := cmp.Diff([]string{a.Object.ObjectID, b.Object.ObjectID}, rs[0].ObjectIDs, cmpopts.SortSlices(func(x, y string) bool { return x < y })); diff != "" {
		t.Errorf("resolution objects (-want +got):\n%s", diff)
	}
	if out := mustCLI(t, "", "resolutions", "--all", "--db", db).stdout; !strings.Contains(out, b.ResolutionID+"  conflict  meeting.day") {
		t.Errorf("human resolutions:\n%s", out)
	}
}
