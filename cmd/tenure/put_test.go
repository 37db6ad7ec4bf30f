package main

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/tenure-dev/tenure"
)

// version is the part of an object version a test compares.
type version struct {
	Key, Value string
	Status     tenure.Status
	Version    int
}

func versionOf(o tenure.Object) version {
	return version{o.Key, string(o.Value), o.Status, o.Version}
}

func TestPutGetHistory(t *testing.T) {
	db := newDB(t)
	r1 := put(t, db, `{"key":"order.status","value":"shipped","valid_from":"2025-01-01T00:00:00Z"}`)
	if r1.Outcome != tenure.OutcomeCreated {
		t.Errorf("first put: outcome %s, want created", r1.Outcome)
	}
	if diff := cmp.Diff(version{"order.status", `"shipped"`, tenure.StatusActive, 1}, versionOf(r1.Object)); diff != "" {
		t.Errorf("first put (-want +got):\n%s", diff)
	}
	got := mustJSON[tenure.Object](t, "", "get", "order.status", "--db", db)
	if got.ObjectID != r1.Object.ObjectID || string(got.Value) != `"shipped"` {
		t.Errorf("get: object %s value %s, want %s \"shipped\"", got.ObjectID, got.Value, r1.Object.ObjectID)
	}

	r2 := put(t, db, `{"key":"order.status","value":"delivered","valid_from":"2025-02-01T00:00:00Z"}`)
	if len(r2.Changes) != 1 || r2.Changes[0].ObjectID != r1.Object.ObjectID || r2.Changes[0].To != tenure.StatusSuperseded {
		t.Errorf("second put changes: %+v, want %s superseded", r2.Changes, r1.Object.ObjectID)
	}
	if got := getValue(t, db, "order.status"); got != `"delivered"` {
		t.Errorf("get after update: %s, want \"delivered\"", got)
	}

	h := mustJSON[tenure.History](t, "", "history", "order.status", "--db", db)
	var versions []version
	for _, o := range h.Versions {
		versions = append(versions, versionOf(o))
	}
	want := []version{
		{"order.status", `"shipped"`, tenure.StatusActive, 1},
		{"order.status", `"shipped"`, tenure.StatusSuperseded, 2},
		{"order.status", `"delivered"`, tenure.StatusActive, 1},
	}
	// The second write stores two versions in one transaction; their order
	// is the store's business.
	byValue := cmpopts.SortSlices(func(a, b version) bool { return a.Value+strconv.Itoa(a.Version) < b.Value+strconv.Itoa(b.Version) })
	if diff := cmp.Diff(want, versions, byValue); diff != "" {
		t.Errorf("history versions (-want +got):\n%s", diff)
	}
	if versions[0] != want[0] {
		t.Errorf("first history version %+v, want %+v", versions[0], want[0])
	}
}

func TestSupersession(t *testing.T) {
	db := newDB(t)
	v1 := put(t, db, `{"key":"status_v1","value":"active"}`)
	v2 := put(t, db, `{"key":"status_v2","value":"cancelled","supersedes":"status_v1"}`)
	if len(v2.Changes) != 1 || v2.Changes[0].Reason != tenure.ReasonExplicit {
		t.Errorf("superseding put changes %+v, want one explicit_supersession", v2.Changes)
	}
	o := mustJSON[tenure.Object](t, "", "get", "status_v1", "--db", db)
	if o.Key != "status_v2" || string(o.Value) != `"cancelled"` {
		t.Errorf("get status_v1: %s = %s, want status_v2 = \"cancelled\"", o.Key, o.Value)
	}
	h := mustJSON[tenure.History](t, "", "history", "status_v1", "--db", db)
	var chain []string
	for _, l := range h.Chain {
		chain = append(chain, l.Key+" "+string(l.Status)+" -> "+l.SupersededBy)
	}
	wantChain := []string{"status_v1 superseded -> " + v2.Object.ObjectID, "status_v2 active -> "}
	if diff := cmp.Diff(wantChain, chain); diff != "" {
		t.Errorf("chain of %s (-want +got):\n%s", v1.Object.ObjectID, diff)
	}
	human := mustCLI(t, "", "get", "status_v1", "--db", db).stdout
	if !strings.HasPrefix(human, `status_v1 → status_v2 = cancelled  [active, valid from `) {
		t.Errorf("human get: %q", human)
	}
}

func TestBatch(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		db := newDB(t)
		res := mustJSON[[]tenure.WriteResult](t, `[{"key":"a","value":1},{"key":"b","value":2}]`, "put", "--db", db)
		if len(res) != 2 || res[0].Object.Key != "a" || res[1].Object.Key != "b" {
			t.Fatalf("batch results: %+v", res)
		}
		if diff := cmp.Diff([]string{"a=1", "b=2"}, listed(t, db)); diff != "" {
			t.Errorf("list after batch (-want +got):\n%s", diff)
		}
	})
	t.Run("ErrAllOrNothing", func(t *testing.T) {
		db := newDB(t)
		r := tenureCLI(t, `[{"key":"a","value":1},{"key":"b","value":2,"layer":"attic"}]`, "put", "--db", db)
		if r.code != 2 || !strings.Contains(r.stderr, "[1].layer") {
			t.Errorf("bad batch: exit %d, stderr %q; want 2 naming [1].layer", r.code, r.stderr)
		}
		if got := listed(t, db, "--status", "all"); len(got) != 0 {
			t.Errorf("bad batch wrote %v", got)
		}
	})
}

func TestPutFillsScope(t *testing.T) {
	db := newDB(t)
	r := put(t, db, `{"key":"note","value":"x"}`, "--project", "p1", "--session", "s1", "--task-id", "t1")
	o := r.Object
	if o.ProjectID != "p1" || o.SessionID != "s1" || o.TaskID != "t1" {
		t.Errorf("scope ids %q %q %q, want p1 s1 t1", o.ProjectID, o.SessionID, o.TaskID)
	}
	r = put(t, db, `{"key":"note2","value":"x","project_id":"own"}`, "--project", "p1")
	if r.Object.ProjectID != "own" {
		t.Errorf("project_id %q, want the object's own", r.Object.ProjectID)
	}
	if c := tenureCLI(t, "", "get", "note", "--db", db).code; c != tenure.ExitCode(tenure.CodeNotFound) {
		t.Errorf("get outside the scope: exit %d, want not found", c)
	}
	if got := getValue(t, db, "note", "--project", "p1", "--session", "s1", "--task-id", "t1"); got != `"x"` {
		t.Errorf("get in the scope: %s", got)
	}
}

func TestPutFile(t *testing.T) {
	db := newDB(t)
	f := writeFile(t, "obj.json", `{"key":"k","value":"from file"}`)
	mustCLI(t, "", "put", "--file", f, "--db", db)
	if got := getValue(t, db, "k"); got != `"from file"` {
		t.Errorf("get: %s", got)
	}
}

func TestHumanOutput(t *testing.T) {
	db := newDB(t)
	out := mustCLI(t, `{"key":"order.status","value":"shipped","valid_from":"2025-01-01T00:00:00Z"}`, "put", "--db", db).stdout
	if !regexp.MustCompile(`^created  order\.status = shipped  \[active, valid from 2025-01-01T00:00:00Z, \S+, v1\]\n$`).MatchString(out) {
		t.Errorf("put output: %q", out)
	}
	out = mustCLI(t, "", "get", "order.status", "--db", db).stdout
	if !regexp.MustCompile(`^order\.status = shipped  \[active, valid from 2025-01-01T00:00:00Z, \S+, v1\]\n$`).MatchString(out) {
		t.Errorf("get output: %q", out)
	}
	out = mustCLI(t, "", "list", "--db", db).stdout
	if !strings.HasPrefix(out, "KEY ") || !strings.Contains(out, "order.status  shipped") || !strings.HasSuffix(out, "1 object\n") {
		t.Errorf("list output:\n%s", out)
	}
	out = mustCLI(t, "", "history", "order.status", "--db", db).stdout
	if !strings.HasPrefix(out, "order.status: 1 version\n  v1  active  order.status = shipped  tx [") {
		t.Errorf("history output:\n%s", out)
	}
}

func TestDashKey(t *testing.T) {
	db := newDB(t)
	put(t, db, `{"key":"-flag-like","value":1}`)
	r := mustCLI(t, "", "get", "--db", db, "--json", "--", "-flag-like")
	if !strings.Contains(r.stdout, `"key": "-flag-like"`) {
		t.Errorf("get -- -flag-like:\n%s", r.stdout)
	}
	if r := tenureCLI(t, "", "get", "--db", db, "--", "-a", "-b"); r.code != 2 || !strings.Contains(r.stderr, "got 2 arguments") {
		t.Errorf("get -- -a -b: exit %d, stderr %q; want a usage error for two keys", r.code, r.stderr)
	}
	if r := tenureCLI(t, "", "get", "--db", db, "-flag-like"); r.code != 2 || !strings.Contains(r.stderr, "--flag-like") {
		t.Errorf("get -flag-like without --: exit %d, stderr %q; want a flag error", r.code, r.stderr)
	}
}
