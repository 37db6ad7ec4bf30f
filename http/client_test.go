package http_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/tenure-dev/tenure"
	"github.com/tenure-dev/tenure/compile"
	"github.com/tenure-dev/tenure/engine"
	tenurehttp "github.com/tenure-dev/tenure/http"
)

// TestClientRoundTrip calls every method of the client against a real
// server and compares with what the embedded store answers.
func TestClientRoundTrip(t *testing.T) {
	e := newEnv(t)
	c := e.client(e.admin)
	p := adminP // ignored by the client: the key decides
	ctx := e.ctx
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)

	w, err := c.Put(ctx, p, tenure.Object{Key: "order.status", Value: []byte(`"approved"`), ValidFrom: t0})
	if err != nil || w.Outcome != tenure.OutcomeCreated || w.Object.TenantID != "acme" || w.Object.WrittenBy != "root" {
		t.Fatalf("Put = %+v, %v", w, err)
	}
	w2, err := c.Put(ctx, p, tenure.Object{Key: "order.status", Value: []byte(`"cancelled"`), Supersedes: "order.status"})
	if err != nil || len(w2.Changes) != 1 || w2.Changes[0].To != tenure.StatusSuperseded {
		t.Fatalf("superseding Put = %+v, %v", w2, err)
	}
	batch, err := c.PutBatch(ctx, p, []tenure.Object{{Key: "a", Value: []byte(`1`)}, {Key: "b", Value: []byte(`2`), DependsOn: []string{"a"}}})
	if err != nil || len(batch) != 2 {
		t.Fatalf("PutBatch = %+v, %v", batch, err)
	}
	_, err = c.PutBatch(ctx, p, []tenure.Object{{Key: "c", Value: []byte(`1`)}, {Key: "d", Value: []byte(`1`), Layer: "attic"}})
	wantError(t, err, tenure.CodeInvalid, "[1].layer")

	t.Run("Reads", func(t *testing.T) {
		for _, r := range []tenure.Read{{}, {AsOfValid: ptr(t0.Add(time.Hour))}, {AsOfTx: ptr(w.Object.TxStart)}} {
			got, err := c.CurrentValue(ctx, p, "order.status", r)
			want, werr := e.store.CurrentValue(ctx, adminP, "order.status", r)
			if err != nil || werr != nil || !sameJSON(got, want) {
				t.Errorf("CurrentValue(%+v): remote %s %v, embedded %s %v", r, got.Value, err, want.Value, werr)
			}
		}
		got, err := c.Get(ctx, p, w.Object.ObjectID, tenure.Read{})
		want, _ := e.store.Get(ctx, adminP, w.Object.ObjectID, tenure.Read{})
		if err != nil || !sameJSON(got, want) {
			t.Errorf("Get: %+v, %v", got, err)
		}
		_, err = c.Get(ctx, p, "nope", tenure.Read{})
		wantError(t, err, tenure.CodeNotFound, "object_id")
		if !strings.HasPrefix(err.Error(), "get object: ") {
			t.Errorf("error not wrapped with the operation: %v", err)
		}
		h, err := c.History(ctx, p, "order.status", tenure.Scope{})
		hw, _ := e.store.History(ctx, adminP, "order.status", tenure.Scope{})
		if err != nil || !sameJSON(h, hw) || len(h.Versions) < 2 {
			t.Errorf("History: %d versions, %v", len(h.Versions), err)
		}
		objs, err := c.List(ctx, p, tenure.Filter{Status: tenure.StatusActive, Limit: 10})
		ow, _ := e.store.List(ctx, adminP, tenure.Filter{Status: tenure.StatusActive, Limit: 10})
		if err != nil || !sameJSON(objs, ow) || len(objs) != 3 {
			t.Errorf("List: %d objects, %v", len(objs), err)
		}
		_, err = c.List(ctx, p, tenure.Filter{Layer: "attic"})
		wantError(t, err, tenure.CodeInvalid, "layer")
	})
	t.Run("KeysWithOddCharacters", func(t *testing.T) {
		for _, key := range []string{"a/b", "..", ".", "x?y=1#z", "100%", "ünïcode key"} {
			if _, err := c.Put(ctx, p, tenure.Object{Key: key, Value: []byte(`"v"`)}); err != nil {
				t.Fatalf("Put %q: %v", key, err)
			}
			o, err := c.CurrentValue(ctx, p, key, tenure.Read{})
			if err != nil || o.Key != key {
				t.Errorf("CurrentValue(%q) = %q, %v", key, o.Key, err)
			}
			if _, err := c.Get(ctx, p, o.ObjectID, tenure.Read{}); err != nil {
				t.Errorf("Get(%q): %v", o.ObjectID, err)
			}
		}
	})
	t.Run("Messages", func(t *testing.T) {
		msgs := []tenure.Message{
			{ThreadID: "t1", ID: "m1", Role: "user", Speaker: "Ann", Content: "We decided to use Postgres yesterday.", CreatedAt: t0},
			{ThreadID: "t1", ID: "m2", Role: "assistant", Content: "Noted: Postgres.", CreatedAt: t0.Add(time.Minute)},
			{ThreadID: "t1", ID: "m3", Role: "user", Speaker: "Ann", Content: "And Redis for caching.", CreatedAt: t0.Add(2 * time.Minute)},
		}
		res, err := c.AppendMessages(ctx, p, msgs)
		if err != nil || res.Appended != 3 {
			t.Fatalf("AppendMessages = %+v, %v", res, err)
		}
		if res, err := c.AppendMessages(ctx, p, msgs[:1]); err != nil || res.Skipped != 1 {
			t.Errorf("re-append = %+v, %v", res, err)
		}
		_, err = c.AppendMessages(ctx, p, []tenure.Message{{ThreadID: "t1", ID: "m9", Role: "robot", Content: "x", CreatedAt: t0}})
		wantError(t, err, tenure.CodeInvalid, "[0].role")
		all, err := c.Messages(ctx, p, tenure.MessageFilter{ThreadID: "t1"})
		if err != nil || len(all) != 3 || len(all[0].Dates) == 0 {
			t.Fatalf("Messages = %d, %v (dates %v)", len(all), err, all)
		}
		after, err := c.Messages(ctx, p, tenure.MessageFilter{ThreadID: "t1", AfterID: "m1", Limit: 1})
		if err != nil || len(after) != 1 || after[0].ID != "m2" {
			t.Errorf("Messages after m1 = %+v, %v", after, err)
		}
		_, err = c.Messages(ctx, p, tenure.MessageFilter{})
		wantError(t, err, tenure.CodeInvalid, "thread_id")
	})
	t.Run("Expand", func(t *testing.T) {
		item := tenure.StateItem{Type: tenure.StateDecision, Text: "Use Postgres", Status: "active", Refs: []string{"m1", "m404"},
			Confidence: tenure.ConfidenceHigh, ThreadID: "t1", CreatedAt: t0, LastSeenAt: t0}
		item.UID = tenure.StateUID(item.Type, item.Text)
		if _, err := c.Put(ctx, p, tenure.Object{Key: engine.StateKey("t1", item.UID), Content: item.Text, StateItem: &item}); err != nil {
			t.Fatalf("put state item: %v", err)
		}
		x, err := c.Expand(ctx, p, tenure.ExpandRequest{UID: item.UID})
		xw, _ := e.store.Expand(ctx, adminP, tenure.ExpandRequest{UID: item.UID})
		if err != nil || !sameJSON(x, xw) || len(x.Messages) != 1 || x.Messages[0].ID != "m1" || len(x.Missing) != 1 {
			t.Errorf("Expand = %+v, %v", x, err)
		}
		_, err = c.Expand(ctx, p, tenure.ExpandRequest{UID: "d_000000000000"})
		wantError(t, err, tenure.CodeNotFound, "uid")
		_, err = e.client(e.bob).Expand(ctx, p, tenure.ExpandRequest{UID: item.UID})
		wantError(t, err, tenure.CodeNotFound, "uid")
	})
	t.Run("Compile", func(t *testing.T) {
		req := compile.Request{Principal: tenure.Principal{TenantID: "globex"}, Query: "What is the order status?", Budget: 800,
			Documents: []compile.Document{{ID: "d1", Source: "wiki", Content: "Orders ship in two days."}}}
		env, tr, err := c.Compile(ctx, req)
		if err != nil || env.Tokens == 0 || env.Tokens > 800 || tr.TraceID == "" || tr.TenantID != "acme" {
			t.Fatalf("Compile = %d tokens, trace %q tenant %q, %v", env.Tokens, tr.TraceID, tr.TenantID, err)
		}
		if !strings.Contains(env.Text(), "cancelled") || strings.Contains(env.Text(), `"approved"`) {
			t.Errorf("envelope does not hold the current value only:\n%s", env.Text())
		}
		// The server keeps it compact (ten omitted candidates a reason).
		got, err := c.Trace(ctx, tr.TraceID)
		if err != nil || !sameJSON(got, tr.Compact(10)) {
			t.Errorf("Trace = %v, %v", got.TraceID, err)
		}
		for _, format := range compile.Formats {
			res, err := c.CompileFormat(ctx, req, format, false)
			if err != nil || res.Format != format || res.Trace != nil || len(res.Envelope) == 0 || res.TraceID == "" {
				t.Errorf("CompileFormat(%s) = %+v, %v", format, res.Format, err)
			}
			var want any
			want = env.Render(format)
			wantJSON, _ := json.Marshal(want)
			if format == compile.FormatJSON || format == compile.FormatText {
				// cache keys and counts agree; the texts are the same compile of the same state
				if res.Tokens != env.Tokens || res.CacheKey != env.CacheKey {
					t.Errorf("CompileFormat(%s): %d tokens cache %s, want %d %s", format, res.Tokens, res.CacheKey, env.Tokens, env.CacheKey)
				}
			}
			if format == compile.FormatText && string(res.Envelope) != string(wantJSON) {
				t.Errorf("text envelope differs:\n%s\n%s", res.Envelope, wantJSON)
			}
		}
		_, _, err = c.Compile(ctx, compile.Request{Budget: -1})
		wantError(t, err, tenure.CodeInvalid, "budget")
	})
	t.Run("Layers", func(t *testing.T) {
		alice := e.client(e.alice)
		w, err := alice.SetIdentity(ctx, tenurehttp.IdentityRequest{SessionID: "s1", UserName: "Alice", Department: "Sales"})
		if err != nil || w.Outcome != tenure.OutcomeCreated || w.Object.Layer != tenure.LayerIdentity || w.Object.UserID != "alice" {
			t.Fatalf("SetIdentity = %+v, %v", w, err)
		}
		var v map[string]any
		json.Unmarshal(w.Object.Value, &v)
		if v["authority"] != "employee" || v["user_name"] != "Alice" {
			t.Errorf("identity value %s: want the key's authority and the given name", w.Object.Value)
		}
		again, err := alice.SetIdentity(ctx, tenurehttp.IdentityRequest{SessionID: "s1", UserName: "Alice", Department: "Sales"})
		if err != nil || again.Outcome != tenure.OutcomeConfirmed {
			t.Errorf("same identity again = %s, %v; want confirmed", again.Outcome, err)
		}
		_, err = alice.SetIdentity(ctx, tenurehttp.IdentityRequest{SessionID: "s1", UserName: "Mallory"})
		wantError(t, err, tenure.CodeConflict, "layer")
		_, err = alice.SetEnvironment(ctx, tenurehttp.EnvironmentRequest{Values: map[string]json.RawMessage{"timezone": []byte(`"Europe/Paris"`)}})
		wantError(t, err, tenure.CodeForbidden, "values.timezone")
		res, err := c.SetEnvironment(ctx, tenurehttp.EnvironmentRequest{Values: map[string]json.RawMessage{
			"timezone": []byte(`"Europe/Paris"`), "location": []byte(`{"city":"Paris"}`)}})
		if err != nil || len(res) != 2 || res[0].Object.Key != "env.location" || res[1].Object.Layer != tenure.LayerEnvironment {
			t.Fatalf("SetEnvironment = %+v, %v", res, err)
		}
		res, err = c.SetEnvironment(ctx, tenurehttp.EnvironmentRequest{Values: map[string]json.RawMessage{"timezone": []byte(`"Europe/Berlin"`)}})
		if err != nil || res[0].Outcome != tenure.OutcomeUpdated {
			t.Errorf("environment rewrite = %+v, %v", res, err)
		}
		if o, err := alice.CurrentValue(ctx, p, "env.timezone", tenure.Read{}); err != nil || string(o.Value) != `"Europe/Berlin"` {
			t.Errorf("alice reads the environment: %s, %v", o.Value, err)
		}
	})
	t.Run("Retire", func(t *testing.T) {
		rep, err := c.Retire(ctx, p, tenure.RetireOptions{ObjectIDs: []string{batch[0].Object.ObjectID}, DryRun: true})
		if err != nil || !rep.DryRun || len(rep.Actions) != 1 {
			t.Fatalf("Retire dry run = %+v, %v", rep, err)
		}
		rep, err = c.Retire(ctx, p, tenure.RetireOptions{ObjectIDs: []string{batch[0].Object.ObjectID}})
		if err != nil || len(rep.Actions) != 1 || rep.Actions[0].Rule != tenure.RetireArchive {
			t.Fatalf("Retire = %+v, %v", rep, err)
		}
		_, err = c.CurrentValue(ctx, p, "a", tenure.Read{})
		wantError(t, err, tenure.CodeNotFound, "key")
		_, err = c.Retire(ctx, p, tenure.RetireOptions{Rule: "burn", ObjectIDs: []string{"x"}})
		wantError(t, err, tenure.CodeInvalid, "rule")
	})
	t.Run("Sessions", func(t *testing.T) {
		if _, err := c.Put(ctx, p, tenure.Object{Key: "scratch", Content: "x", Layer: tenure.LayerWorkingSet, SessionID: "s9"}); err != nil {
			t.Fatal(err)
		}
		n, err := c.EndSession(ctx, p, "s9")
		if err != nil || n != 1 {
			t.Errorf("EndSession = %d, %v", n, err)
		}
	})
	t.Run("Resolutions", func(t *testing.T) {
		peer := e.client(e.key(tenure.Principal{TenantID: "acme", UserID: "peer", Authority: "policy", Clearance: tenure.HighlyRestricted}))
		if _, err := c.Put(ctx, p, tenure.Object{Key: "tie", Value: []byte(`1`)}); err != nil {
			t.Fatal(err)
		}
		if _, err := peer.Put(ctx, p, tenure.Object{Key: "tie", Value: []byte(`2`)}); err != nil {
			t.Fatal(err)
		}
		open, err := c.Resolutions(ctx, p, true)
		want, _ := e.store.Resolutions(ctx, adminP, true)
		if err != nil || !sameJSON(open, want) {
			t.Errorf("Resolutions = %+v, %v; embedded %+v", open, err, want)
		}
		all, err := c.Resolutions(ctx, p, false)
		if err != nil || len(all) < len(open) {
			t.Errorf("all resolutions = %d, %v", len(all), err)
		}
	})
	t.Run("Whoami", func(t *testing.T) {
		k, err := c.Whoami(ctx)
		if err != nil || k.Principal.UserID != "root" || k.ID == "" {
			t.Errorf("Whoami = %+v, %v", k, err)
		}
		if err := c.Ready(ctx); err != nil {
			t.Errorf("Ready: %v", err)
		}
	})
}

func TestClientErrors(t *testing.T) {
	e := newEnv(t)
	t.Run("ErrBadURL", func(t *testing.T) {
		_, err := tenurehttp.NewClient("ftp://x", "tk_x", tenurehttp.ClientOptions{}).Whoami(e.ctx)
		wantError(t, err, tenure.CodeInvalid, "server")
	})
	t.Run("ErrUnreachable", func(t *testing.T) {
		_, err := tenurehttp.NewClient("http://127.0.0.1:1", "tk_x", tenurehttp.ClientOptions{}).Whoami(e.ctx)
		wantError(t, err, tenure.CodeUnavailable, "")
	})
	t.Run("ErrUnauthenticated", func(t *testing.T) {
		_, err := e.client("tk_wrong").List(e.ctx, tenure.Principal{}, tenure.Filter{})
		wantError(t, err, tenure.CodeUnauthenticated, "Authorization")
	})
	t.Run("ErrListFilterNotOverHTTP", func(t *testing.T) {
		_, err := e.client(e.alice).List(e.ctx, tenure.Principal{}, tenure.Filter{Author: "alice"})
		wantError(t, err, tenure.CodeInvalid, "author")
	})
}

func ptr[T any](v T) *T { return &v }

// sameJSON reports whether a and b encode to the same JSON.
func sameJSON(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return cmp.Equal(string(ja), string(jb))
}
